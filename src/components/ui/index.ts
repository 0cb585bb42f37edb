export { Badge, type BadgeProps, type BadgeTone } from "./badge";
export { Button, buttonClasses, type ButtonProps, type ButtonSize, type ButtonVariant } from "./button";
export { Card, CardBody, CardFooter, CardHeader, type CardHeaderProps } from "./card";
export { cn } from "./cn";
export { EmptyState, type EmptyStateProps } from "./empty-state";
export { ErrorState, type ErrorStateProps } from "./error-state";
export { PageHeader, type PageHeaderProps } from "./page-header";
export { Spinner, type SpinnerProps } from "./spinner";

"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./button";
import { cn } from "./cn";

export interface DialogProps {
  open: boolean;
  /** Called on Escape, a click on the backdrop, or the dialog closing itself. */
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Buttons, right-aligned at the bottom. */
  footer?: ReactNode;
  testId?: string;
  className?: string;
}

/**
 * A modal on the native <dialog>: the browser traps focus, closes it on Escape and gives
 * focus back to what had it before.
 */
export function Dialog({ open, onClose, title, description, children, footer, testId, className }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      data-testid={testId}
      onClose={onClose}
      onClick={(event) => {
        // A click on the backdrop lands on the <dialog> itself.
        if (event.target === event.currentTarget) onClose();
      }}
      className={cn(
        "m-auto w-[calc(100%-2rem)] max-w-md rounded-card border border-gray-200 bg-white p-0 text-gray-900 shadow-xl",
        "backdrop:bg-gray-950/40",
        className,
      )}
    >
      {open && (
        <div className="flex flex-col">
          <div className="px-5 pt-5">
            <h2 id={titleId} className="text-base font-semibold text-gray-900">
              {title}
            </h2>
            {description && (
              <p id={descriptionId} className="mt-1.5 text-sm text-gray-600">
                {description}
              </p>
            )}
          </div>
          {children && <div className="px-5 pt-4">{children}</div>}
          {footer && <div className="mt-5 flex flex-wrap justify-end gap-2 rounded-b-card border-t border-gray-200 bg-gray-50 px-5 py-3">{footer}</div>}
        </div>
      )}
    </dialog>
  );
}

export interface ConfirmDialogProps {
  open: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  title: ReactNode;
  description?: ReactNode;
  confirmLabel: string;
  /** While the action runs: the confirm button spins and cancel is disabled. */
  pending?: boolean;
  /** An error from the action, shown in the dialog. */
  error?: ReactNode;
  testId?: string;
}

/** "Are you sure?" for destructive actions; the safe choice (Cancel) has the focus. */
export function ConfirmDialog({ open, onCancel, onConfirm, title, description, confirmLabel, pending = false, error, testId }: ConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={() => {
        if (!pending) onCancel();
      }}
      title={title}
      description={description}
      testId={testId}
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} disabled={pending} autoFocus data-testid={testId ? `${testId}-cancel` : undefined}>
            Cancel
          </Button>
          <Button variant="danger" onClick={onConfirm} loading={pending} data-testid={testId ? `${testId}-confirm` : undefined}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {error && <p className="rounded-control bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200 ring-inset">{error}</p>}
    </Dialog>
  );
}

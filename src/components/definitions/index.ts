export { EventNameCombobox } from "./event-name-combobox";
export { PropertyKeyCombobox, type PropertyKeyComboboxProps } from "./property-key-combobox";
export { PropertyValueCombobox, type PropertyValueComboboxProps } from "./property-value-combobox";
export type { SuggestionInputProps } from "./types";

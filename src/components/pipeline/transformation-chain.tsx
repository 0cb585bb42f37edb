"use client";

import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
} from "@dnd-kit/core";
import { restrictToVerticalAxis } from "@dnd-kit/modifiers";
import { arrayMove, SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { Badge, Button, cn, Switch } from "@/components/ui";
import type { ConfigData } from "./types";

export interface TransformationChainProps {
  configs: ConfigData[];
  /** The new order of all configs, by id (called after a drop or a keyboard move). */
  onReorder: (ids: number[]) => void;
  onToggle: (config: ConfigData, enabled: boolean) => void;
  onEdit: (config: ConfigData) => void;
  onDelete: (config: ConfigData) => void;
  /** Ids whose enable switch is saving. */
  togglingId: number | null;
}

/**
 * The project's transformations in chain order. Reorder by dragging a row's handle, or
 * with the keyboard: focus the handle, Space to pick up, arrow keys to move, Space to drop
 * (Escape cancels); dnd-kit announces each step to screen readers.
 */
export function TransformationChain({ configs, onReorder, onToggle, onEdit, onDelete, togglingId }: TransformationChainProps) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const nameOf = (id: string | number) => configs.find((config) => config.id === Number(id))?.name ?? "transformation";
  const positionOf = (id: string | number) => configs.findIndex((config) => config.id === Number(id)) + 1;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}, position ${positionOf(active.id)} of ${configs.length}.`,
    onDragOver: ({ active, over }) => (over ? `${nameOf(active.id)} is over position ${positionOf(over.id)} of ${configs.length}.` : undefined),
    onDragEnd: ({ active, over }) => (over ? `${nameOf(active.id)} dropped at position ${positionOf(over.id)} of ${configs.length}.` : undefined),
    onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} was cancelled.`,
  };

  function dragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    const ids = configs.map((config) => config.id);
    onReorder(arrayMove(ids, ids.indexOf(Number(active.id)), ids.indexOf(Number(over.id))));
  }

  return (
    <DndContext
      id="transformation-chain"
      sensors={sensors}
      collisionDetection={closestCenter}
      modifiers={[restrictToVerticalAxis]}
      onDragEnd={dragEnd}
      accessibility={{
        announcements,
        screenReaderInstructions: { draggable: "To reorder, press Space or Enter to pick up, use the arrow keys to move, and press Space or Enter again to drop. Escape cancels." },
      }}
    >
      <SortableContext items={configs.map((config) => config.id)} strategy={verticalListSortingStrategy}>
        <ol className="divide-y divide-gray-200" data-testid="transformation-chain">
          {configs.map((config, index) => (
            <ChainRow
              key={config.id}
              config={config}
              position={index + 1}
              onToggle={onToggle}
              onEdit={onEdit}
              onDelete={onDelete}
              toggling={togglingId === config.id}
            />
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

function ChainRow({
  config,
  position,
  onToggle,
  onEdit,
  onDelete,
  toggling,
}: {
  config: ConfigData;
  position: number;
  onToggle: TransformationChainProps["onToggle"];
  onEdit: TransformationChainProps["onEdit"];
  onDelete: TransformationChainProps["onDelete"];
  toggling: boolean;
}) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: config.id });
  const rate = config.delivery_rate_24h;
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      className={cn("relative flex flex-wrap items-center gap-x-3 gap-y-2 bg-white px-3 py-3 last:rounded-b-card sm:flex-nowrap sm:px-4", isDragging && "z-10 shadow-lg ring-1 ring-brand-200")}
      data-testid="transformation-row"
      data-config-id={config.id}
      data-name={config.name}
    >
      <button
        type="button"
        ref={setActivatorNodeRef}
        {...attributes}
        {...listeners}
        aria-label={`Reorder ${config.name}, position ${position}`}
        className="flex size-9 shrink-0 cursor-grab touch-none items-center justify-center rounded-control text-gray-400 hover:bg-gray-100 hover:text-gray-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 active:cursor-grabbing"
        data-testid="reorder-handle"
      >
        <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-5">
          <path d="M7 4a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Zm0 6a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Zm-1.5 7.5a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3ZM16 4a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Zm-1.5 7.5a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3ZM16 16a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Z" />
        </svg>
      </button>
      <span className="w-6 shrink-0 text-center text-sm font-medium text-gray-500 tabular-nums" aria-hidden="true">
        {position}
      </span>
      <div className="min-w-0 flex-1 basis-40">
        <div className="flex flex-wrap items-center gap-2">
          <span className="truncate text-sm font-medium text-gray-900" data-testid="transformation-name">
            {config.name}
          </span>
          {config.name !== config.plugin_info.name && <Badge>{config.plugin_info.name}</Badge>}
          {config.error && (
            <Badge tone="danger" dot title={config.error} data-testid="transformation-error">
              Error
            </Badge>
          )}
        </div>
        <p className="mt-0.5 truncate text-xs text-gray-500">
          {rate === null ? "No events in the last 24 hours" : `${Math.round(rate * 1000) / 10}% of the last 24 hours' events ran without error`}
        </p>
      </div>
      <div className="flex w-full items-center justify-end gap-1 pl-12 sm:w-auto sm:pl-0">
        <Switch checked={config.enabled} onChange={(enabled) => onToggle(config, enabled)} label={`${config.name} enabled`} disabled={toggling} testId="transformation-enabled" className="mr-2" />
        <Button variant="ghost" size="sm" onClick={() => onEdit(config)} data-testid="transformation-edit" aria-label={`Edit ${config.name}`}>
          Edit
        </Button>
        <Button variant="ghost" size="sm" className="text-red-700 hover:bg-red-50" onClick={() => onDelete(config)} data-testid="transformation-delete" aria-label={`Delete ${config.name}`}>
          Delete
        </Button>
      </div>
    </li>
  );
}

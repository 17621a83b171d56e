import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal confirmation on the native <dialog>: the browser traps focus inside, Escape cancels, and focus
 * returns to the button that opened it.
 */
export function ConfirmDialog(props: { open: boolean; title: string; confirmLabel: string; danger?: boolean; busy?: boolean; onConfirm: () => void; onCancel: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  // Several dialogs can sit on one page (a card's pending entries and its redemptions): each its own title id.
  const titleId = `confirm-title-${useId()}`;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onCancel={(event) => (event.preventDefault(), props.onCancel())}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
        <div class="actions">
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
          <button type="submit" class={props.danger ? 'danger' : 'primary'} disabled={props.busy}>
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}

import { h } from "../dom.js";
import { onEvent } from "../events.js";

/**
 * A button for a write that cannot be taken back (deleting a session or a block, undoing an
 * overlay): it asks `question` first and runs `act` only on yes; a failure goes to `report`, as
 * every studio write's does.
 */
export function dangerButton(
  label: string,
  question: string,
  act: () => Promise<void>,
  report: (error: unknown) => void,
): HTMLButtonElement {
  return h(
    "button",
    {
      type: "button",
      class: "danger",
      onclick: onEvent(async () => {
        if (!confirm(question)) return;
        try {
          await act();
        } catch (error) {
          report(error);
        }
      }),
    },
    label,
  );
}

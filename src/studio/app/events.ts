/**
 * Event handlers that run async work. The DOM ignores a handler's promise, so a failure the work
 * did not handle itself would be an unhandled rejection; here it is logged instead.
 */
export function onEvent<Args extends unknown[]>(
  work: (...args: Args) => Promise<unknown>,
): (...args: Args) => void {
  return (...args) => {
    work(...args).catch((error: unknown) => {
      console.error("[arbor studio]", error);
    });
  };
}

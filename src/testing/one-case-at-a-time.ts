/**
 * Runs conformance cases strictly one after another, even past a runner's timeout.
 *
 * A runner's timeout ends a case's test, not its body: a body still writing would land its rows
 * in the next case's fresh store. On a loaded machine one timed-out 10,010-message case failed the
 * twelve cases after it that way, each seeing the stray chain. So each case starts only once the
 * body before it has settled, whether it passed, failed or was abandoned.
 */
export function oneCaseAtATime(): <T>(run: () => Promise<T>) => Promise<T> {
  let previous: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>): Promise<T> => {
    const next = previous.then(run);
    previous = next.catch(() => undefined);
    return next;
  };
}

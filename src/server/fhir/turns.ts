/**
 * Runs steps one at a time, each in a turn of the event loop of its own (a `setImmediate`
 * callback, after the previous step's), in the order they were asked for. Between two steps the
 * server reads its sockets and answers what is cheap (`/health`, kept answers), so ten costly
 * searches arriving together delay another request by one step, not by all of their work.
 */
export class Turns {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(step: () => T): Promise<T> {
    const done = this.tail.then(
      () =>
        new Promise<T>((resolve, reject) =>
          setImmediate(() => {
            try {
              resolve(step());
            } catch (error) {
              reject(error);
            }
          }),
        ),
    );
    this.tail = done.catch(() => undefined);
    return done;
  }
}

/**
 * Responses handed back to Bun together at the end of the event loop's turn, instead of each as
 * soon as it is built: the answers of the direct routes and the cached answers, the two paths
 * nearly every request of a busy server takes. Bun reads every request that arrived on the turn
 * and calls its handler; a response returned at once is written at once, and each of those
 * writes wakes the client's reader on its own, which on this host cost the server about as much
 * as building the answer (bench/README.md, "Where the rest goes"). Released together, the writes
 * follow one another and a reader woken by the first finds the others waiting. The wait is at
 * most the rest of the turn: one request on its own waits for nothing but the turn's end.
 */
let responses: Response[] = [];
let resolvers: ((response: Response) => void)[] = [];

function releaseAll() {
  const ready = responses;
  const waiting = resolvers;
  responses = [];
  resolvers = [];
  for (let i = 0; i < ready.length; i++) waiting[i]!(ready[i]!);
}

/** `response`, delivered when the current turn of the event loop ends, with every other one. */
export function atTurnEnd(response: Response): Promise<Response> {
  return new Promise((resolve) => {
    if (responses.push(response) === 1) setImmediate(releaseAll);
    resolvers.push(resolve);
  });
}

import { type Body, smallerThan } from "./compression";

/**
 * Responses handed back to Bun together at the end of the event loop's turn, instead of each as
 * soon as it is built: the answers of the direct routes and the cached answers, the two paths
 * nearly every request of a busy server takes. Bun reads every request that arrived on the turn
 * and calls its handler; a response returned at once is written at once, and each of those
 * writes wakes the client's reader on its own, which on this host cost the server about as much
 * as building the answer (bench/README.md, "Where the rest goes"). Released together, the writes
 * follow one another and a reader woken by the first finds the others waiting. The wait is at
 * most the rest of the turn: one request on its own waits for nothing but the turn's end.
 *
 * Only responses with a small body wait (`canWait`): Bun writes a body of 16 KB or more handed
 * back after its handler returned in pieces of under 1 KB, one system call each (a bare server:
 * about 7,000 responses/s against 45,000 answered at once); up to 12 KB it writes it whole.
 */
const LARGEST_WAITING_BODY = 12 * 1024;
const small = new WeakSet<Response>();

/** `response`, whose body is `body`: marked to wait for the turn's end when the body is small. */
export function canWait(response: Response, body: Blob | Body | null): Response {
  if (body === null || smallerThan(body, LARGEST_WAITING_BODY + 1)) small.add(response);
  return response;
}

let responses: Response[] = [];
let resolvers: ((response: Response) => void)[] = [];

function releaseAll() {
  const ready = responses;
  const waiting = resolvers;
  responses = [];
  resolvers = [];
  for (let i = 0; i < ready.length; i++) waiting[i]!(ready[i]!);
}

/**
 * `response`, delivered when the current turn of the event loop ends with every other one; at
 * once when it was not marked by `canWait`.
 */
export function atTurnEnd(response: Response): Response | Promise<Response> {
  if (!small.has(response)) return response;
  return new Promise((resolve) => {
    if (responses.push(response) === 1) setImmediate(releaseAll);
    resolvers.push(resolve);
  });
}

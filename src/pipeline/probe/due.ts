/** Orders URLs so that consecutive ones are on different hosts where possible (round-robin). */
export function interleaveByHost(urls: readonly string[]): string[] {
  const byHost = new Map<string, string[]>();
  for (const url of urls) {
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      host = "";
    }
    let list = byHost.get(host);
    if (!list) {
      list = [];
      byHost.set(host, list);
    }
    list.push(url);
  }
  let queues = [...byHost.values()];
  const out: string[] = [];
  for (let round = 0; queues.length > 0; round++) {
    for (const q of queues) out.push(q[round]!);
    queues = queues.filter((q) => q.length > round + 1);
  }
  return out;
}

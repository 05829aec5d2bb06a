/**
 * A prober outage is not a directory outage. When the prober's own network or DNS fails, every
 * URL fails at the network level; recording that would turn thousands of healthy entries
 * `unresponsive` and put a failed probe in each one's availability history. So the run watches
 * itself: results that failed at the network level (no HTTP response, for a network reason) are
 * held back for one window before they are written. When, within a window, at least `minHosts`
 * distinct hosts failed that way, they are at least `failedShare` of the hosts heard from, and at
 * least `previouslyUpShare` of them answered with a CapabilityStatement at their previous probe,
 * the canaries are asked: the configured ones (`canaryUrls`, none by default) and the directory's
 * own, through the guard: the hosts that answered most recently in this run and the steadiest
 * hosts of the directory (those with the most URLs that answered at their previous probe), none
 * of them a host failing in the window; and then, if none of those answers, any server answering
 * one of the run's requests within a grace period. If every canary fails too, the prober lost the network:
 * the held results are dropped (no status, no history), the run stops and says so, and the next
 * run probes those URLs again. If a canary answers, the failures are real and are written: a set
 * of hosts that went down is recorded as down, whatever canary is configured or unreachable.
 */
import type { OutageRule, ProbeResult } from "../../model/probe";
import type { ProbeRecord } from "./record";
import { hostOf } from "./summary";

interface OutageWatchOptions {
  clock?: () => number;
  /** The directory's steadiest URLs, one per host, steadiest first (steadiestUrls). */
  steady?: readonly string[];
  /**
   * When no canary answers, how long any other HTTP answer of the run still counts as one (the
   * requests in flight); default 10 s. A lost network answers nothing in that time either.
   */
  graceMs?: number;
}

interface Trip {
  failed: number;
  hosts: number;
  wasUp: number;
  /** The hosts failing at the network level in the window: never asked as canaries. */
  failing: Set<string>;
}

/** Why a run stopped without recording its last window. */
export class ProberOutageError extends Error {
  constructor(
    readonly failedHosts: number,
    readonly hostsSeen: number,
    readonly previouslyUp: number,
    readonly dropped: number,
    canaries: string,
  ) {
    super(
      `the prober lost the network: ${failedHosts} of ${hostsSeen} hosts failed at the network level within the window ` +
        `(${previouslyUp} of them answered at their previous probe) and ${canaries}. ` +
        `Nothing of the window was recorded (${dropped} URLs); the next run probes them again.`,
    );
    this.name = "ProberOutageError";
  }
}

/** No HTTP response for a network reason (the TLS kinds mean the server itself answered badly). */
const NETWORK_KINDS = new Set(["dns", "refused", "timeout", "network"]);
type Documents = Pick<ProbeResult, "entryStatus" | "metadata" | "smart">;
const networkFailure = (doc: ProbeResult["metadata"]) =>
  doc.httpStatus === null && NETWORK_KINDS.has(doc.errorKind ?? "");

/** Neither document got an HTTP response, for a network reason: what an outage of our own looks like. */
function failedAtNetworkLevel(result: Documents): boolean {
  return result.entryStatus === "unresponsive" && networkFailure(result.metadata) && networkFailure(result.smart);
}

/** Either document failed for a network reason: held back for a window, dropped if the network was lost. */
function touchedByNetwork(result: Documents): boolean {
  return networkFailure(result.metadata) || networkFailure(result.smart);
}

/** Any HTTP response from any canary within `timeoutMs` (each tried in parallel). */
export async function anyCanaryAnswers(urls: readonly string[], timeoutMs: number): Promise<boolean> {
  const attempts = urls.map(async (url) => {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel().catch(() => {});
    return true;
  });
  try {
    return await Promise.any(attempts);
  } catch {
    return false;
  }
}

/** How many directory canaries of each kind a check asks: recent answerers, then steady hosts. */
const DIRECTORY_CANARIES = 3;

/**
 * One URL on each of the `count` hosts with the most URLs in `urls` (the URLs that answered at
 * their previous probe): a vendor's shared host serving thousands of tenants is the steadiest
 * server the directory knows.
 */
export function steadiestUrls(urls: readonly string[], count: number): string[] {
  const byHost = new Map<string, { url: string; n: number }>();
  for (const url of urls) {
    const host = hostOf(url);
    const seen = byHost.get(host);
    if (seen) seen.n++;
    else byHost.set(host, { url, n: 1 });
  }
  return [...byHost.values()]
    .sort((a, b) => b.n - a.n || (a.url < b.url ? -1 : 1))
    .slice(0, count)
    .map((h) => h.url);
}

interface Seen {
  at: number;
  host: string;
  failed: boolean;
  wasUp: boolean;
}

/**
 * Sits between the probe and the writer (see the module comment). `write` receives what may be
 * recorded; `onLost` is called once when the canaries confirm an outage.
 */
export class OutageWatch {
  private readonly seen: Seen[] = [];
  private seenHead = 0;
  private held: { at: number; record: ProbeRecord }[] = [];
  private checking: Promise<void> | null = null;
  /** After the canaries answered, no new check before this time (they were just asked). */
  private quietUntil = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Called at the run's next HTTP answer from any server (a check waiting for one). */
  private answerWaiters: (() => void)[] = [];
  /** Host → a URL of it whose /metadata got an HTTP answer in this run, most recent last. */
  private readonly answering = new Map<string, string>();
  lost: ProberOutageError | null = null;

  constructor(
    private readonly rule: OutageRule,
    private readonly write: (record: ProbeRecord) => void,
    private readonly answeredBefore: (url: string) => boolean,
    /** Asks the configured canaries and `directory` (URLs of the directory's own hosts): true when any answers. */
    private readonly canariesAnswer: (directory: string[]) => Promise<boolean>,
    private readonly onLost: (error: ProberOutageError) => void,
    private readonly options: OutageWatchOptions = {},
  ) {}

  private clock(): number {
    return this.options.clock?.() ?? performance.now();
  }

  add(record: ProbeRecord & { result: ProbeResult }) {
    if (this.lost) return;
    const now = this.clock();
    const failed = failedAtNetworkLevel(record.result);
    const host = hostOf(record.url);
    if (record.result.metadata.httpStatus !== null || record.result.smart.httpStatus !== null) {
      for (const answered of this.answerWaiters.splice(0)) answered();
      this.answering.delete(host);
      this.answering.set(host, record.url);
      if (this.answering.size > 4 * DIRECTORY_CANARIES) this.answering.delete(this.answering.keys().next().value!);
    }
    this.seen.push({
      at: now,
      host,
      failed,
      wasUp: failed && this.answeredBefore(record.url),
    });
    if (!touchedByNetwork(record.result)) {
      this.write(record);
      return;
    }
    this.held.push({ at: now, record });
    this.timer ??= setInterval(() => this.release(), Math.min(1000, this.rule.windowMs));
    const trip = this.tripped(now);
    if (trip && !this.checking && now >= this.quietUntil) this.checking = this.check(trip);
  }

  /** Waits for a canary check in flight, then writes what is held unless the network was lost. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.checking) await this.checking;
    if (!this.lost) {
      const trip = this.tripped(this.clock());
      if (trip && this.clock() >= this.quietUntil) await this.check(trip);
    }
    if (!this.lost) this.release(true);
    this.held = [];
  }

  /** Writes held results older than the window, or all (unless a check is deciding about them). */
  private release(all = false) {
    if (this.lost || this.checking) return;
    const cutoff = all ? Number.POSITIVE_INFINITY : this.clock() - this.rule.windowMs;
    let n = 0;
    while (n < this.held.length && this.held[n]!.at <= cutoff) this.write(this.held[n++]!.record);
    if (n > 0) this.held = this.held.slice(n);
  }

  /** The counts of the current window when they meet the rule; else null. */
  private tripped(now: number): Trip | null {
    const from = now - this.rule.windowMs;
    while (this.seenHead < this.seen.length && this.seen[this.seenHead]!.at < from) this.seenHead++;
    if (this.seenHead > 4096) {
      this.seen.splice(0, this.seenHead);
      this.seenHead = 0;
    }
    // Each host counts once, by its latest result in the window.
    const latest = new Map<string, Seen>();
    for (let i = this.seenHead; i < this.seen.length; i++) latest.set(this.seen[i]!.host, this.seen[i]!);
    let failed = 0;
    let wasUp = 0;
    const failing = new Set<string>();
    for (const s of latest.values()) {
      if (!s.failed) continue;
      failed++;
      failing.add(s.host);
      if (s.wasUp) wasUp++;
    }
    const { minHosts, failedShare, previouslyUpShare } = this.rule;
    if (failed < minHosts || failed < failedShare * latest.size || wasUp < previouslyUpShare * failed) return null;
    return { failed, hosts: latest.size, wasUp, failing };
  }

  /** The directory's canaries for a check: recent answerers, then steady hosts, none of them failing. */
  private directoryCanaries(failing: ReadonlySet<string>): string[] {
    const recent = [...this.answering.entries()]
      .reverse()
      .filter(([host]) => !failing.has(host))
      .slice(0, DIRECTORY_CANARIES);
    const chosen = new Set(recent.map(([host]) => host));
    const steady = (this.options.steady ?? [])
      .filter((url) => !failing.has(hostOf(url)) && !chosen.has(hostOf(url)))
      .slice(0, DIRECTORY_CANARIES);
    return [...recent.map(([, url]) => url), ...steady];
  }

  /** True when any server gives the run an HTTP answer within `ms`. */
  private anotherAnswerWithin(ms: number): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const answered = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.answerWaiters = this.answerWaiters.filter((w) => w !== answered);
        resolve(false);
      }, ms);
      this.answerWaiters.push(answered);
    });
  }

  private async check(trip: Trip) {
    await null; // `checking` is set by the caller before this settles
    const canaries = this.rule.canaryUrls;
    const directory = this.directoryCanaries(trip.failing);
    const answered =
      (canaries.length + directory.length > 0 && (await this.canariesAnswer(directory))) ||
      (await this.anotherAnswerWithin(this.options.graceMs ?? 10_000));
    this.checking = null;
    if (answered) {
      this.quietUntil = this.clock() + this.rule.windowMs;
      return;
    }
    this.lost = new ProberOutageError(
      trip.failed,
      trip.hosts,
      trip.wasUp,
      this.held.length,
      canaries.length + directory.length > 0
        ? `no canary answered (${[...canaries, ...directory].join(", ")})`
        : "no canary is configured and no other host of the directory could be asked",
    );
    this.held = [];
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.onLost(this.lost);
  }
}

import { Rng } from "../generate/prng";
import { BEHAVIOURS, type Behaviour } from "./farm";

export interface PlanOptions {
  urls: number;
  /** Share of hosts that accept connections and never answer. Default 10 %. */
  silentPercent?: number;
  /** Share of hosts that answer after 1–8 s. Default 5 %. */
  slowPercent?: number;
  /** Share of hosts with some other fault, spread over every hostile behaviour. Default 5 %. */
  hostilePercent?: number;
  /** Share of well-behaved hosts served over https (a certificate from the farm's CA). Default 10 %. */
  httpsPercent?: number;
  seed?: number;
}

export interface FarmPlan {
  /** One behaviour per host. */
  behaviours: Behaviour[];
  /** Base URLs per host. */
  urlsPerHost: number[];
}

const HOSTILE = BEHAVIOURS.filter((b) => !["ok", "slow", "silent", "tls-ok"].includes(b));

/**
 * A national-like farm: a few big shared hosts (a vendor's multi-tenant server: 6 % of the URLs
 * each, well-behaved) and thousands of small ones with 1 to 6 URLs (one organisation's server),
 * of which the given shares are silent, slow or hostile, in a seeded random order.
 */
export function nationalPlan(options: PlanOptions): FarmPlan {
  const rng = new Rng(options.seed ?? 1);
  const big = options.urls >= 1000 ? 3 : 0;
  const perBig = Math.floor(options.urls * 0.06);
  const urlsPerHost: number[] = Array(big).fill(perBig);
  let left = options.urls - big * perBig;
  while (left > 0) {
    const n = Math.min(left, 1 + rng.int(6));
    urlsPerHost.push(n);
    left -= n;
  }
  const small = urlsPerHost.length - big;
  const count = (percent: number | undefined, fallback: number) => Math.round((small * (percent ?? fallback)) / 100);
  const silent = count(options.silentPercent, 10);
  const slow = count(options.slowPercent, 5);
  const hostile = count(options.hostilePercent, 5);
  const smallBehaviours: Behaviour[] = [
    ...Array<Behaviour>(silent).fill("silent"),
    ...Array<Behaviour>(slow).fill("slow"),
    ...Array.from({ length: hostile }, (_, i) => HOSTILE[i % HOSTILE.length]!),
  ];
  const rest = small - smallBehaviours.length;
  const https = Math.round((rest * (options.httpsPercent ?? 10)) / 100);
  smallBehaviours.push(...Array<Behaviour>(https).fill("tls-ok"), ...Array<Behaviour>(rest - https).fill("ok"));
  for (let i = smallBehaviours.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [smallBehaviours[i], smallBehaviours[j]] = [smallBehaviours[j]!, smallBehaviours[i]!];
  }
  return { behaviours: [...Array<Behaviour>(big).fill("ok"), ...smallBehaviours], urlsPerHost };
}

/**
 * Hostile JSON just under the body cap (tools/farm hostileJson): refused before it is parsed,
 * whether a server sends it or it was stored before the bounds; and the permits that keep large
 * bodies few however many requests are in flight.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { JSON_BOUNDS, jsonOverBounds } from "../../../src/model/bounded-json";
import { probeDue, recordProbe } from "../../../src/pipeline/probe";
import { BodyBudget } from "../../../src/pipeline/probe/body-budget";
import { PROBE_DEFAULTS, Prober } from "../../../src/pipeline/probe/prober";
import { rederive } from "../../../src/pipeline/probe/rederive";
import { farmDocuments } from "../../../tools/farm/documents";
import { type Behaviour, type Farm, HOSTILE_JSON_BEHAVIOURS, hostileJson, startFarm } from "../../../tools/farm/farm";
import { createTestApp } from "../../support/app";
import { bareSummary, insertEntry, tempDb } from "./helpers";

const documents = farmDocuments();
const CAP = 5 * 1024 * 1024;
const PACE = { bytesPerSecond: PROBE_DEFAULTS.largeBodyBytesPerSecond, graceMs: PROBE_DEFAULTS.largeBodyGraceMs };
let farm: Farm;
let ctx: ReturnType<typeof tempDb>;
const ids = new Map<Behaviour, string>();

beforeAll(async () => {
  farm = await startFarm([...HOSTILE_JSON_BEHAVIOURS], { documents, firstOctet: 43 });
  ctx = tempDb();
  for (const host of farm.hosts) ids.set(host.behaviour, insertEntry(ctx.db, { url: farm.baseUrl(host) }));
  await probeDue(ctx.db, { allowPrivate: true, timeoutMs: 30_000, writeInWorker: false });
}, 120_000);

afterAll(async () => {
  await farm.stop();
  ctx.cleanup();
});

const stored = (behaviour: Behaviour) =>
  ctx.db.sqlite
    .prepare(
      "SELECT p.probe_status, p.error_kind, p.metadata_body_id, e.status FROM entries e JOIN probes p ON p.url = e.url WHERE e.id = ?",
    )
    .get(ids.get(behaviour)!) as {
    probe_status: string;
    error_kind: string | null;
    metadata_body_id: number | null;
    status: string;
  };

describe("a server's JSON over the bounds is refused unparsed", () => {
  test.each([
    ["json-deep", `nested more than ${JSON_BOUNDS.depth} deep`],
    ["json-wide", `more than ${JSON_BOUNDS.values} values`],
    ["json-keys", `more than ${JSON_BOUNDS.distinctKeys} distinct keys`],
    ["json-long-string", `a string of more than ${JSON_BOUNDS.stringLength} characters`],
  ] as const)("%s: body_too_complex (%s), nothing kept, the entry unchanged", (behaviour, reason) => {
    expect(stored(behaviour)).toEqual({
      probe_status: "failed",
      error_kind: "body_too_complex",
      metadata_body_id: null,
      status: "listed",
    });
    expect(jsonOverBounds(hostileJson(behaviour, "metadata", CAP, documents.metadata[0]!))).toBe(reason);
  });

  test("a real statement padded to nearly 5 MB is within the bounds: verified", () => {
    expect(stored("json-padded")).toMatchObject({ probe_status: "success", error_kind: null, status: "verified" });
  });

  test("every real document is within the bounds", () => {
    for (const text of [...documents.metadata, ...documents.smart, documents.dstu2])
      expect(jsonOverBounds(text)).toBeNull();
  });
});

test("hostile bodies stored before the bounds: derive and the capabilities answer treat them as not kept", async () => {
  const db = tempDb();
  try {
    const ids = (["json-deep", "json-wide"] as const).map((behaviour, i) => {
      const url = `https://stored${i}.example.org/fhir`;
      const id = insertEntry(db.db, { url });
      const doc = (kind: "metadata" | "smart") => ({
        ok: true,
        httpStatus: 200,
        body: hostileJson(behaviour, kind, CAP, kind === "metadata" ? documents.metadata[0]! : documents.smart[0]!),
      });
      const summary = { ...bareSummary("R4"), softwareName: "as stored", smartSupported: true };
      recordProbe(
        db.db,
        url,
        {
          probeStatus: "success",
          entryStatus: "verified",
          errorKind: null,
          durationMs: 1,
          summary,
          access: null,
          metadata: doc("metadata"),
          smart: doc("smart"),
        },
        new Date(),
      );
      return id;
    });
    const result = rederive(db.db);
    expect(result).toMatchObject({ probes: 2, changedProbes: 2 });
    const app = createTestApp({ db: db.db, config: loadConfig({ RATE_LIMIT_MAX: "0" }) });
    for (const id of ids) {
      const response = await app.handle(new Request(`http://localhost/api/v1/endpoints/${id}/capabilities`));
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as {
        data: { summary: Record<string, unknown>; verdict: Record<string, { status: string }> };
      };
      expect(data.summary).toMatchObject({ fhirVersion: "UNKNOWN", softwareName: null, smartSupported: false });
    }
  } finally {
    db.cleanup();
  }
}, 60_000);

describe("large-body permits", () => {
  test("past the free size, at most `permits` bodies are held; the others wait their turn in order", async () => {
    const budget = new BodyBudget(1024, 2, PACE);
    const [a, b, c, d] = [budget.lease(), budget.lease(), budget.lease(), budget.lease()];
    expect(await a.take()).toBe(true);
    expect(await b.take()).toBe(true);
    const order: string[] = [];
    const waitC = c.take().then(() => order.push("c"));
    const waitD = d.take().then(() => order.push("d"));
    await Bun.sleep(5);
    expect(order).toEqual([]);
    a.release();
    await Bun.sleep(5);
    expect(order).toEqual(["c"]);
    b.release();
    await Promise.all([waitC, waitD]);
    expect(order).toEqual(["c", "d"]);
  });

  test("a wait ends when the run is aborted", async () => {
    const budget = new BodyBudget(1024, 1, PACE);
    await budget.lease().take();
    const stop = new AbortController();
    const waiting = budget.lease().take(stop.signal);
    stop.abort();
    expect(await waiting).toBe(false);
  });
});

test("more large bodies than permits at once: the extra requests are dropped unread and asked again, every document read", async () => {
  // Six hosts each serve a 2 MB statement (real, padded) as a stream in 64 KB steps, without a
  // Content-Length, so the prober finds each large only as it reads. Two permits: the others must
  // not wait holding their bodies (Bun's fetch would go on buffering them) but drop and ask again.
  const body = new TextEncoder().encode(
    hostileJson("json-padded", "metadata", 2 * 1024 * 1024, documents.metadata[0]!),
  );
  let closedEarly = 0;
  let asked = 0;
  const servers = Array.from({ length: 6 }, (_, i) =>
    Bun.serve({
      hostname: `127.0.52.${i + 1}`,
      port: 0,
      fetch(request) {
        if (!new URL(request.url).pathname.endsWith("/metadata")) return new Response("not found", { status: 404 });
        asked++;
        let sent = 0;
        return new Response(
          new ReadableStream({
            async pull(controller) {
              await Bun.sleep(2);
              const chunk = body.subarray(sent, sent + 64 * 1024);
              sent += chunk.byteLength;
              controller.enqueue(chunk);
              if (sent >= body.byteLength) controller.close();
            },
            cancel() {
              closedEarly++;
            },
          }),
          { headers: { "Content-Type": "application/fhir+json" } },
        );
      },
    }),
  );
  try {
    const prober = new Prober({ allowPrivate: true, timeoutMs: 30_000 });
    const results = await Promise.all(
      servers.map((server) => prober.probe(`http://127.0.52.${servers.indexOf(server) + 1}:${server.port}/fhir`)),
    );
    for (const result of results) expect(result.metadata).toMatchObject({ ok: true, errorKind: null });
    expect(closedEarly).toBeGreaterThan(0);
    expect(asked).toBe(6 + closedEarly);
  } finally {
    for (const server of servers) server.stop(true);
  }
}, 60_000);

/**
 * A worker thread that owns its own connection and writes probe results, so SQLite's work
 * (and its disk waits) stay off the thread that drives the HTTP requests.
 * Messages in: {type:"open", path} | {type:"write", id, records, at, history} | {type:"close"}.
 * Messages out: {type:"opened"} | {type:"written", id} | {type:"error", id?, message} | {type:"closed"}.
 */
import { type Db, openDatabase } from "../../db/client";
import type { ProbeRecord } from "./record";
import { recordProbes } from "./store";

declare const self: Worker;

type Message =
  | { type: "open"; path: string }
  | { type: "write"; id: number; records: ProbeRecord[]; at: string; history: boolean }
  | { type: "close" };

let db: Db | null = null;

self.onmessage = (event: MessageEvent<Message>) => {
  const message = event.data;
  try {
    if (message.type === "open") {
      db = openDatabase(message.path);
      self.postMessage({ type: "opened" });
    } else if (message.type === "write") {
      if (!db) throw new Error("store worker: write before open");
      recordProbes(db, message.records, message.at, { history: message.history });
      self.postMessage({ type: "written", id: message.id });
    } else if (message.type === "close") {
      db?.sqlite.close();
      db = null;
      self.postMessage({ type: "closed" });
    }
  } catch (error) {
    self.postMessage({
      type: "error",
      id: message.type === "write" ? message.id : undefined,
      message: (error as Error).stack ?? String(error),
    });
  }
};

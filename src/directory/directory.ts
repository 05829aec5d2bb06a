import type { Database } from "bun:sqlite";
import { readDatasetVersion } from "../db/dataset-meta";
import { DatasetSnapshot } from "./snapshot";

/**
 * The dataset the API serves: the newest complete snapshot. `refreshIfChanged` builds the next
 * snapshot beside the current one and swaps them in one step, so no request sees a mix.
 */
export class Directory {
  private snapshot: DatasetSnapshot;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly path: string,
    private readonly watcher: Database,
  ) {
    this.snapshot = DatasetSnapshot.open(path);
  }

  get current(): DatasetSnapshot {
    return this.snapshot;
  }

  /** Returns true when a newer dataset version was loaded. */
  refreshIfChanged(): boolean {
    if (readDatasetVersion(this.watcher) === this.snapshot.version) return false;
    const next = DatasetSnapshot.open(this.path);
    const previous = this.snapshot;
    this.snapshot = next;
    previous.close();
    return true;
  }

  watch(intervalMs: number, onError: (error: unknown) => void) {
    this.timer = setInterval(() => {
      try {
        this.refreshIfChanged();
      } catch (error) {
        onError(error);
      }
    }, intervalMs);
    this.timer.unref?.();
  }

  close() {
    clearInterval(this.timer);
    this.snapshot.close();
  }
}

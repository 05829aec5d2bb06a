import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config";

describe("the refresh schedule's configuration", () => {
  test("on by default: daily, 30 s after a start, retries from 10 minutes up to 6 hours, a 2-minute lock", () => {
    expect(loadConfig({}).refresh).toEqual({
      enabled: true,
      everyMs: 86_400_000,
      firstDelayMs: 30_000,
      retryMs: 600_000,
      retryMaxMs: 21_600_000,
      lockMs: 120_000,
    });
  });

  test("REFRESH=off turns it off; the delays are given in seconds", () => {
    const { refresh } = loadConfig({
      REFRESH: "off",
      REFRESH_EVERY_SECONDS: "3600",
      REFRESH_FIRST_DELAY_SECONDS: "0",
      REFRESH_RETRY_SECONDS: "5",
      REFRESH_RETRY_MAX_SECONDS: "60",
      REFRESH_LOCK_SECONDS: "2",
    });
    expect(refresh).toEqual({
      enabled: false,
      everyMs: 3_600_000,
      firstDelayMs: 0,
      retryMs: 5_000,
      retryMaxMs: 60_000,
      lockMs: 2_000,
    });
  });

  test("a bad value stops with a message naming the variable", () => {
    expect(() => loadConfig({ REFRESH: "false" })).toThrow('REFRESH must be one of on, off, got "false"');
    expect(() => loadConfig({ REFRESH_EVERY_SECONDS: "0" })).toThrow(
      "REFRESH_EVERY_SECONDS must be a whole number ≥ 1",
    );
    expect(() => loadConfig({ REFRESH_LOCK_SECONDS: "1" })).toThrow("REFRESH_LOCK_SECONDS must be a whole number ≥ 2");
    expect(() => loadConfig({ REFRESH_RETRY_SECONDS: "600", REFRESH_RETRY_MAX_SECONDS: "60" })).toThrow(
      "REFRESH_RETRY_MAX_SECONDS must be at least REFRESH_RETRY_SECONDS",
    );
  });
});

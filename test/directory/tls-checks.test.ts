import { describe, expect, test } from "bun:test";
import {
  certificateValid30Days,
  metadataOnSameHost,
  type TlsCheckInput,
  tls12OrLater,
  tlsChecks,
} from "../../src/directory/tls-checks";

const PROBED = "2026-11-27T04:00:00.000Z";
const input = (over: Partial<TlsCheckInput> = {}): TlsCheckInput => ({
  url: "https://fhir.example.org/r4",
  probedAt: PROBED,
  tls: { protocol: "TLSv1.3", certificateExpiresAt: "2027-03-01T00:00:00.000Z", issuer: "Example CA", verified: true },
  finalUrl: "https://fhir.example.org/r4/metadata",
  redirectCount: 0,
  ...over,
});
const tls = (over: Partial<TlsCheckInput["tls"]>) => ({ ...input().tls, ...over });

describe("tls-1.2-or-later", () => {
  test("TLS 1.2 and 1.3 pass; 1.1 and 1.0 fail; http and unknown cannot apply", () => {
    expect(tls12OrLater(input()).ok).toBe(true);
    expect(tls12OrLater(input({ tls: tls({ protocol: "TLSv1.2" }) })).ok).toBe(true);
    expect(tls12OrLater(input({ tls: tls({ protocol: "TLSv1.1" }) }))).toEqual({
      id: "tls-1.2-or-later",
      ok: false,
      detail: "negotiated TLSv1.1, older than TLS 1.2",
    });
    expect(tls12OrLater(input({ tls: tls({ protocol: "TLSv1" }) })).ok).toBe(false);
    expect(tls12OrLater(input({ url: "http://fhir.example.org/r4" })).ok).toBeNull();
    expect(tls12OrLater(input({ tls: tls({ protocol: null }) })).ok).toBeNull();
  });
});

describe("certificate-valid-30-days", () => {
  test("verified and valid 30 days or more after the probe passes", () => {
    const check = certificateValid30Days(input());
    expect(check.ok).toBe(true);
    expect(check.detail).toBe("verified; expires 2027-03-01, 93 days after the probe");
  });

  test("expiring within 30 days, expired, or not verified fails", () => {
    const soon = certificateValid30Days(input({ tls: tls({ certificateExpiresAt: "2026-12-20T00:00:00.000Z" }) }));
    expect(soon).toMatchObject({ ok: false, detail: "verified, but expires 2026-12-20, 22 days after the probe" });
    const expired = certificateValid30Days(
      input({ tls: tls({ certificateExpiresAt: "2026-10-01T00:00:00.000Z", verified: false }) }),
    );
    expect(expired.ok).toBe(false);
    expect(certificateValid30Days(input({ tls: tls({ verified: false }) })).ok).toBe(false);
  });

  test("exactly 30 days passes, 29 fails", () => {
    expect(certificateValid30Days(input({ tls: tls({ certificateExpiresAt: "2026-12-27T04:00:00.000Z" }) })).ok).toBe(
      true,
    );
    expect(certificateValid30Days(input({ tls: tls({ certificateExpiresAt: "2026-12-27T03:59:59.000Z" }) })).ok).toBe(
      false,
    );
  });

  test("http, never probed, or no certificate read cannot apply", () => {
    expect(certificateValid30Days(input({ url: "http://x.example/r4" })).ok).toBeNull();
    expect(certificateValid30Days(input({ probedAt: null })).ok).toBeNull();
    expect(certificateValid30Days(input({ tls: tls({ certificateExpiresAt: null, verified: null }) })).ok).toBeNull();
  });
});

describe("metadata-on-same-host", () => {
  test("same host passes, with or without redirects on it", () => {
    expect(metadataOnSameHost(input())).toMatchObject({
      ok: true,
      detail: "/metadata answered on fhir.example.org without a redirect",
    });
    expect(
      metadataOnSameHost(input({ finalUrl: "https://fhir.example.org/v2/r4/metadata", redirectCount: 2 })).detail,
    ).toBe("/metadata answered on fhir.example.org after 2 redirects");
  });

  test("another host, or another port, fails", () => {
    expect(metadataOnSameHost(input({ finalUrl: "https://cdn.other.net/r4/metadata", redirectCount: 1 }))).toEqual({
      id: "metadata-on-same-host",
      ok: false,
      detail: "/metadata answered on cdn.other.net, not fhir.example.org, after 1 redirect",
    });
    expect(metadataOnSameHost(input({ finalUrl: "https://fhir.example.org:8443/r4/metadata" })).ok).toBe(false);
  });

  test("nothing answered yet cannot apply", () => {
    expect(metadataOnSameHost(input({ finalUrl: null, redirectCount: null })).ok).toBeNull();
  });
});

test("tlsChecks gives the three, in order", () => {
  expect(tlsChecks(input()).map((c) => c.id)).toEqual([
    "tls-1.2-or-later",
    "certificate-valid-30-days",
    "metadata-on-same-host",
  ]);
});

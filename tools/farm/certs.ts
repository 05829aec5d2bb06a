/**
 * Certificates for the fault farm, made with the openssl command on each start: a test CA, one
 * leaf it signs for the farm's https addresses (valid from yesterday for a year), one it signs
 * that expired last year, and a self-signed one. Nothing here is ever trusted outside a test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface FarmCertificates {
  /** The test CA (PEM): trust it to verify `valid` (and `expired`, which still fails on its date). */
  ca: string;
  valid: { cert: string; key: string };
  expired: { cert: string; key: string };
  selfSigned: { cert: string; key: string };
  /** When `valid` expires. */
  validUntil: Date;
}

const CA_CONFIG = `[ ca ]
default_ca = farm
[ farm ]
dir = .
database = index.txt
serial = serial
new_certs_dir = .
default_md = sha256
policy = any
copy_extensions = copy
unique_subject = no
[ any ]
commonName = supplied
`;

function openssl(dir: string, args: string[]) {
  const run = Bun.spawnSync(["openssl", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr.toString()}`);
}

/** openssl's ASN.1 time: YYYYMMDDHHMMSSZ. */
const asn1 = (date: Date) => `${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** Makes the farm's certificates for these IP addresses (each leaf names all of them). */
export function makeCertificates(addresses: readonly string[], now = new Date()): FarmCertificates {
  const dir = mkdtempSync(join(tmpdir(), "farm-certs-"));
  try {
    writeFileSync(join(dir, "ca.cnf"), CA_CONFIG);
    writeFileSync(join(dir, "index.txt"), "");
    writeFileSync(join(dir, "serial"), "01\n");
    const san = `subjectAltName=${addresses.map((a) => `IP:${a}`).join(",") || "IP:127.0.0.1"}`;
    openssl(dir, [
      "req",
      "-x509",
      ...EC,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-subj",
      "/CN=Farm Test CA",
      "-days",
      "3",
    ]);
    openssl(dir, ["req", ...EC, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=farm", "-addext", san]);
    const day = 86_400_000;
    const validUntil = new Date(Math.floor((now.getTime() + 365 * day) / 1000) * 1000);
    const sign = (out: string, from: Date, to: Date) =>
      openssl(dir, [
        "ca",
        "-batch",
        "-config",
        "ca.cnf",
        "-cert",
        "ca.pem",
        "-keyfile",
        "ca.key",
        "-in",
        "leaf.csr",
        "-out",
        out,
        "-startdate",
        asn1(from),
        "-enddate",
        asn1(to),
      ]);
    sign("valid.pem", new Date(now.getTime() - day), validUntil);
    sign("expired.pem", new Date(now.getTime() - 400 * day), new Date(now.getTime() - 35 * day));
    openssl(dir, [
      "req",
      "-x509",
      ...EC,
      "-keyout",
      "self.key",
      "-out",
      "self.pem",
      "-subj",
      "/CN=self-signed farm host",
      "-addext",
      san,
      "-days",
      "30",
    ]);
    const read = (name: string) => readFileSync(join(dir, name), "utf8");
    const leafKey = read("leaf.key");
    return {
      ca: read("ca.pem"),
      valid: { cert: read("valid.pem"), key: leafKey },
      expired: { cert: read("expired.pem"), key: leafKey },
      selfSigned: { cert: read("self.pem"), key: read("self.key") },
      validUntil,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

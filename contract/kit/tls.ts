/**
 * TLS for talking to a target (and for serving the webhook sink over HTTPS): extra trusted CAs,
 * a client certificate for mTLS, and TLS failures named precisely. Verification is never
 * switched off: there is no option for it, and `rejectUnauthorized` is set explicitly so that
 * `NODE_TLS_REJECT_UNAUTHORIZED=0` in the environment does not switch it off either.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  createSecureContext,
  rootCertificates,
  type SecureContext,
  type SecureContextOptions,
  type TLSSocket,
} from "node:tls";
import { buildConnector } from "undici";

/** PEM text, read and checked: what the HTTP client's TLS connection is given. */
export interface TlsMaterial {
  /** Extra trusted CA certificates (PEM), trusted in addition to Node's own root CAs. */
  ca?: string[];
  /** Client certificate (PEM, may carry its chain) and its private key, for mTLS. */
  cert?: string;
  key?: string;
  passphrase?: string;
}

export interface TlsFiles {
  caFiles?: readonly string[];
  certFile?: string;
  keyFile?: string;
  passphrase?: string;
}

/** What each input is called in an error: by default its role, e.g. "CA file (H2H_CA_FILE)". */
export interface TlsFileLabels {
  caFile: string;
  certFile: string;
  keyFile: string;
  passphrase: string;
}

const DEFAULT_LABELS: TlsFileLabels = {
  caFile: "CA file (H2H_CA_FILE)",
  certFile: "client certificate (H2H_CLIENT_CERT)",
  keyFile: "client key (H2H_CLIENT_KEY)",
  passphrase: "client key passphrase (H2H_CLIENT_KEY_PASSPHRASE)",
};

/** A TLS setting that cannot be used; the message names the file, what is wrong and the fix. */
export class TlsConfigError extends Error {
  override name = "TlsConfigError";
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function readPem(path: string, label: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code ?? "unreadable";
    throw new TlsConfigError(
      `${label} ${path} cannot be read: ${code} (point it at a readable PEM file, or unset it)`,
    );
  }
}

function certificatesIn(pem: string, path: string, label: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    throw new TlsConfigError(
      `${label} ${path} holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----"; convert DER with ` +
        "`openssl x509 -inform der -in FILE -out FILE.pem`)",
    );
  }
  return blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new TlsConfigError(
        `${label} ${path}: certificate ${index + 1} does not parse (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  });
}

/** PKCS#8 (`ENCRYPTED PRIVATE KEY`) and traditional OpenSSL (`Proc-Type: 4,ENCRYPTED`) encryption. */
const ENCRYPTED_PEM = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/;

function readKey(path: string, passphrase: string | undefined, labels: TlsFileLabels): KeyObject {
  const pem = readPem(path, labels.keyFile);
  if (passphrase === undefined && ENCRYPTED_PEM.test(pem))
    throw new TlsConfigError(`${labels.keyFile} ${path} is encrypted: set the ${labels.passphrase}`);
  try {
    return createPrivateKey(passphrase === undefined ? pem : { key: pem, passphrase });
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    const message = error instanceof Error ? error.message : String(error);
    if (code === "ERR_MISSING_PASSPHRASE")
      throw new TlsConfigError(`${labels.keyFile} ${path} is encrypted: set the ${labels.passphrase}`);
    // An old export (PBE with DES, RC2, MD5) needs OpenSSL's legacy provider, which Node does not
    // load: the passphrase may be right, so do not say it is wrong.
    if (code === "ERR_OSSL_EVP_UNSUPPORTED" || /digital envelope routines::unsupported/.test(message))
      throw new TlsConfigError(
        `${labels.keyFile} ${path} is encrypted with a cipher this Node.js does not support (an old export: DES, RC2 or MD5): ` +
          `re-encrypt it with AES, e.g. openssl pkcs8 -topk8 -v2 aes-256-cbc -provider legacy -provider default -in ${path} -out new.key (${message})`,
      );
    // A wrong passphrase usually fails AES's padding check ("bad decrypt"), but about one time in
    // 220 the garbage it decrypts to ends in valid padding, and OpenSSL then reports a key it cannot
    // decode ("DECODER routines::unsupported"). For an encrypted key given a passphrase, both mean
    // the passphrase is wrong (or the file damaged), so the message may not depend on which it was.
    if (passphrase !== undefined && (ENCRYPTED_PEM.test(pem) || /decrypt/i.test(message)))
      throw new TlsConfigError(
        `${labels.keyFile} ${path}: the ${labels.passphrase} is wrong, or the key file is damaged (${message})`,
      );
    throw new TlsConfigError(`${labels.keyFile} ${path} is not a PEM private key (${message})`);
  }
}

/**
 * Reads and checks TLS files before any request: each file readable, PEM, parseable; a client
 * certificate with its key, the two matching, the key's passphrase right, the certificate
 * within its validity dates.
 */
export function readTlsFiles(files: TlsFiles, labels: Partial<TlsFileLabels> = {}): TlsMaterial {
  const names = { ...DEFAULT_LABELS, ...labels };
  const material: TlsMaterial = {};
  if (files.caFiles && files.caFiles.length > 0) {
    material.ca = files.caFiles.map((path) => {
      const pem = readPem(path, names.caFile);
      certificatesIn(pem, path, names.caFile);
      return pem;
    });
  }
  if ((files.certFile === undefined) !== (files.keyFile === undefined)) {
    throw new TlsConfigError(
      files.certFile === undefined
        ? `${names.keyFile} is set without a ${names.certFile}: both are needed`
        : `${names.certFile} is set without a ${names.keyFile}: both are needed`,
    );
  }
  if (files.certFile !== undefined && files.keyFile !== undefined) {
    const certPem = readPem(files.certFile, names.certFile);
    const [leaf] = certificatesIn(certPem, files.certFile, names.certFile) as [X509Certificate];
    const key = readKey(files.keyFile, files.passphrase, names);
    if (!leaf.checkPrivateKey(key)) {
      throw new TlsConfigError(
        `${names.certFile} ${files.certFile} and ${names.keyFile} ${files.keyFile} do not belong together ` +
          "(the key is not the certificate's private key): give the key the certificate was issued for",
      );
    }
    const now = Date.now();
    if (Date.parse(leaf.validTo) < now)
      throw new TlsConfigError(`${names.certFile} ${files.certFile} expired on ${leaf.validTo}: renew it`);
    if (Date.parse(leaf.validFrom) > now)
      throw new TlsConfigError(
        `${names.certFile} ${files.certFile} is not valid before ${leaf.validFrom}: check the clock, or use a current certificate`,
      );
    material.cert = certPem;
    material.key = readPem(files.keyFile, names.keyFile);
    if (files.passphrase !== undefined) material.passphrase = files.passphrase;
  }
  return material;
}

/** One certificate as a report shows it: who it names, who issued it, until when. */
export interface CertificateSummary {
  subject: string;
  issuer: string;
  validTo: string;
}

/** What a run used for TLS, for its report: paths and certificates, never a key or a passphrase. */
export interface TlsSummary {
  caFile?: string;
  /** The certificates in the CA file. */
  caCertificates?: CertificateSummary[];
  clientCert?: string;
  /** The client certificate (the first in its file). */
  clientCertificate?: CertificateSummary;
  clientKey?: string;
  /** Whether the client key was given a passphrase (never the passphrase itself). */
  passphrase?: boolean;
}

const oneLine = (name: string) => name.split("\n").join(", ");

function summaryOf(certificate: X509Certificate): CertificateSummary {
  return {
    subject: oneLine(certificate.subject),
    issuer: oneLine(certificate.issuer),
    validTo: new Date(certificate.validTo).toISOString(),
  };
}

/** The report's account of the TLS files (already checked by `readTlsFiles`). */
export function summarizeTlsFiles(files: TlsFiles, material: TlsMaterial): TlsSummary {
  const summary: TlsSummary = {};
  const certificates = (pem: string) => (pem.match(PEM_CERTIFICATE) ?? []).map((b) => new X509Certificate(b));
  if (files.caFiles && files.caFiles.length > 0) {
    summary.caFile = files.caFiles.join(", ");
    summary.caCertificates = (material.ca ?? []).flatMap(certificates).map(summaryOf);
  }
  if (files.certFile !== undefined && material.cert !== undefined) {
    summary.clientCert = files.certFile;
    const [leaf] = certificates(material.cert);
    if (leaf) summary.clientCertificate = summaryOf(leaf);
  }
  if (files.keyFile !== undefined) summary.clientKey = files.keyFile;
  if (files.passphrase !== undefined) summary.passphrase = true;
  return summary;
}

/** One line per TLS setting, for the console and the HTML report. */
export function tlsSummaryLines(summary: TlsSummary): string[] {
  const lines: string[] = [];
  if (summary.caFile !== undefined) {
    const certificates = (summary.caCertificates ?? [])
      .map((c) => `${c.subject}, valid to ${c.validTo}`)
      .join("; ");
    lines.push(`trusted CA file ${summary.caFile}: ${certificates}`);
  }
  if (summary.clientCert !== undefined) {
    const c = summary.clientCertificate;
    lines.push(
      `client certificate ${summary.clientCert}${c ? `: ${c.subject} (issued by ${c.issuer}), valid to ${c.validTo}` : ""}` +
        `, key ${summary.clientKey ?? "?"}${summary.passphrase ? " (encrypted, passphrase given)" : ""}`,
    );
  }
  return lines;
}

/** The CA certificates Node trusts through NODE_EXTRA_CA_CERTS, which an explicit `ca` would drop. */
function nodeExtraCaCertificates(): string[] {
  const path = process.env.NODE_EXTRA_CA_CERTS;
  if (!path) return [];
  try {
    return readFileSync(path, "utf8").match(PEM_CERTIFICATE) ?? [];
  } catch {
    return [];
  }
}

/**
 * One secure context per material, made on first use: making one parses every trusted root CA
 * (and decrypts the client key), which per connection cost a burst of new connections seconds of
 * CPU on a busy machine, enough to time requests out.
 */
const secureContexts = new WeakMap<TlsMaterial, SecureContext>();

/** The `connect` options of an undici Agent (Node's tls.connect options) for this material. */
export function tlsConnectOptions(material: TlsMaterial | undefined): Record<string, unknown> {
  const options: Record<string, unknown> = { rejectUnauthorized: true };
  if (!material) return options;
  let context = secureContexts.get(material);
  if (!context) {
    const contextOptions: SecureContextOptions = {};
    if (material.ca && material.ca.length > 0) {
      // An explicit `ca` replaces Node's trust store: keep its root CAs (and NODE_EXTRA_CA_CERTS).
      contextOptions.ca = [...rootCertificates, ...nodeExtraCaCertificates(), ...material.ca];
    }
    if (material.cert !== undefined) contextOptions.cert = material.cert;
    if (material.key !== undefined) contextOptions.key = material.key;
    if (material.passphrase !== undefined) contextOptions.passphrase = material.passphrase;
    context = createSecureContext(contextOptions);
    secureContexts.set(material, context);
  }
  options.secureContext = context;
  return options;
}

export type TlsProblem =
  | "unknown-ca"
  | "self-signed"
  | "hostname-mismatch"
  | "expired"
  | "not-yet-valid"
  | "revoked"
  | "client-certificate-required"
  | "client-certificate-refused"
  | "not-tls"
  | "handshake-failed";

export interface TlsFailure {
  problem: TlsProblem;
  /** The cause in plain words, with the fix. */
  explanation: string;
}

const TRUST_FIX = "trust the CA that signed it with a CA file (H2H_CA_FILE, PEM)";

/**
 * Names a TLS failure from its Node / OpenSSL error code; undefined when the code is not a TLS
 * one. Server-side refusals arrive as TLS alerts (`ERR_SSL_..._ALERT_...`).
 */
export function describeTlsFailure(code: string): TlsFailure | undefined {
  switch (code) {
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
      return {
        problem: "self-signed",
        explanation: `the target's certificate is self-signed: ${TRUST_FIX}`,
      };
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "UNABLE_TO_GET_ISSUER_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "CERT_UNTRUSTED":
    case "CERT_SIGNATURE_FAILURE":
      return {
        problem: "unknown-ca",
        explanation: `the target's certificate is signed by an unknown CA: ${TRUST_FIX}`,
      };
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return {
        problem: "hostname-mismatch",
        explanation:
          "the target's certificate does not name this host (hostname mismatch): use the host name the certificate is issued for",
      };
    case "CERT_HAS_EXPIRED":
      return { problem: "expired", explanation: "the target's certificate has expired" };
    case "CERT_NOT_YET_VALID":
      return {
        problem: "not-yet-valid",
        explanation: "the target's certificate is not valid yet (check clocks)",
      };
    case "CERT_REVOKED":
      return { problem: "revoked", explanation: "the target's certificate is revoked" };
    case "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED":
      return {
        problem: "client-certificate-required",
        explanation:
          "the target requires a client certificate (mTLS) and none was sent: set H2H_CLIENT_CERT and H2H_CLIENT_KEY",
      };
    case CLOSED_AFTER_CLIENT_CERTIFICATE:
      return {
        problem: "client-certificate-refused",
        explanation:
          "the target closed the connection right after the TLS handshake, without an answer, when given the client certificate: it refused the certificate (use one issued by a CA the target trusts, within its dates)",
      };
    case "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE":
    case "ERR_SSL_TLSV1_ALERT_UNKNOWN_CA":
    case "ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN":
    case "ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED":
    case "ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED":
    case "ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE":
    case "ERR_SSL_TLSV1_ALERT_ACCESS_DENIED":
      return {
        problem: "client-certificate-refused",
        explanation: `the target refused the client certificate (TLS alert ${code.replace(/^ERR_SSL_/, "")}): use a certificate issued by a CA the target trusts, within its dates`,
      };
    case "ERR_SSL_WRONG_VERSION_NUMBER":
    case "ERR_SSL_PACKET_LENGTH_TOO_LONG":
    case "ERR_SSL_HTTP_REQUEST":
      return {
        problem: "not-tls",
        explanation: "the target does not speak TLS on this port: use http:// or the HTTPS port",
      };
    case "ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE":
      return {
        problem: "handshake-failed",
        explanation:
          "the TLS handshake failed (no common protocol or cipher, or a client certificate the target requires is missing)",
      };
    default:
      if (/^ERR_SSL_|^ERR_TLS_|^EPROTO$/.test(code))
        return { problem: "handshake-failed", explanation: `the TLS handshake failed (${code})` };
      return undefined;
  }
}

/**
 * The code given to a connection the target closed right after the handshake, before any answer,
 * when a client certificate was presented: how a target that checks client certificates after the
 * handshake (Node's own TLS servers do) refuses one, with no TLS alert to name it.
 */
export const CLOSED_AFTER_CLIENT_CERTIFICATE = "TLS_CLOSED_AFTER_CLIENT_CERTIFICATE";

interface SocketNote {
  tlsError?: Error;
  secured: boolean;
  receivedBytes: number;
}

/** How many recent connections are remembered to explain their failures. */
const NOTES_KEPT = 256;

export interface TlsAwareConnector {
  /** undici's `connect` option. */
  connect: buildConnector.connector;
  /**
   * What really ended a connection undici reports only as "other side closed": the TLS alert the
   * socket received (a TLS 1.3 server names a missing client certificate after the handshake),
   * or a close right after the handshake when a client certificate was presented. Takes the
   * socket info undici's SocketError carries.
   */
  explain(socketInfo: { localPort?: number } | undefined): { code: string; detail: string } | undefined;
}

/** An undici connector that keeps what each TLS connection saw, to name its failure precisely. */
export function tlsAwareConnector(
  options: buildConnector.BuildOptions,
  /** Whether a client certificate is presented (it may sit inside `options.secureContext`). */
  presentsCertificate = (options as { cert?: unknown }).cert !== undefined,
): TlsAwareConnector {
  const connector = buildConnector(options);
  const notes = new Map<number, SocketNote>();
  const connect: buildConnector.connector = (connectOptions, callback) => {
    connector(connectOptions, (...args) => {
      const [error, socket] = args;
      if (!error && socket && (socket as TLSSocket).encrypted && socket.localPort !== undefined) {
        const note: SocketNote = { secured: true, receivedBytes: 0 };
        notes.set(socket.localPort, note);
        if (notes.size > NOTES_KEPT) notes.delete(notes.keys().next().value as number);
        socket.on("error", (socketError: Error) => {
          note.tlsError ??= socketError;
        });
        socket.on("data", (chunk: Buffer) => {
          note.receivedBytes += chunk.length;
        });
      }
      callback(...args);
    });
  };
  return {
    connect,
    explain(socketInfo) {
      const port = socketInfo?.localPort;
      const note = port === undefined ? undefined : notes.get(port);
      if (!note) return undefined;
      const code = (note.tlsError as { code?: unknown } | undefined)?.code;
      if (typeof code === "string" && describeTlsFailure(code))
        return { code, detail: (note.tlsError as Error).message.split("\n")[0] ?? code };
      if (note.secured && note.receivedBytes === 0 && presentsCertificate)
        return { code: CLOSED_AFTER_CLIENT_CERTIFICATE, detail: "closed after the handshake, no answer" };
      return undefined;
    },
  };
}

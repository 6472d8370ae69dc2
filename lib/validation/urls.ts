import { validateHost } from "./endpoints";
import { ConfigError, show } from "./errors";
import { validatePort } from "./numbers";

/**
 * Validates an `https://host[:port][/path]` URL — what kubeconfigs and etcd client URLs hold. Credentials,
 * queries and fragments are rejected: they would leak into logs or be silently ignored by clients.
 */
export function validateHttpsUrl(field: string, value: string): URL {
  const form = "https://host[:port][/path] without credentials, query or fragment";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(field, `${show(value)} is not a URL`, form);
  }
  if (url.protocol !== "https:") throw new ConfigError(field, `${show(value)} does not use https`, form);
  if (url.username || url.password || url.search || url.hash || value.includes("#") || value.includes("?")) {
    throw new ConfigError(field, `${show(value)} has credentials, a query or a fragment`, form);
  }
  // URL lower-cases and punycodes hosts; validate the host as written so typos are not silently fixed.
  const written = /^https:\/\/(\[[^\]]*\]|[^/:]*)/i.exec(value)?.[1] ?? "";
  validateHost(field, written.startsWith("[") ? written.slice(1, -1) : written);
  if (url.port !== "") validatePort(field, Number(url.port));
  return url;
}

/** The port a URL names, or 443 when it names none (URL drops default ports). */
export function urlPort(url: URL): number {
  return url.port === "" ? 443 : Number(url.port);
}

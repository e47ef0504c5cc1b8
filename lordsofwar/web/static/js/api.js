/* The one client of the site's JSON API (docs/web.md): same-origin requests with the page's CSRF
 * token (<meta name="csrf-token">) on every request that changes something, JSON both ways.
 *
 *   const game = await getJSON(`/api/games/${id}`);
 *   try { await postJSON(`/api/games/${id}/resign`, {}); }
 *   catch (e) { if (e instanceof ApiError) show(e.detail || ...); else show(e.message); }
 *
 * A refusal (any status but 2xx) is thrown as an ApiError carrying the status and the server's
 * problem document (application/problem+json: detail, code, ...); a request that never got an
 * answer as a NetworkError.
 */

/** @typedef {import('./api-types').components['schemas']['ErrorBody']} ErrorBody */
/** @typedef {{detail?: string, code?: string, [k: string]: unknown}} Problem */

/** A refusal of the API. */
export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status
   * @param {Problem} body the problem document (empty when the answer was not JSON)
   */
  constructor(status, body) {
    super(typeof body.detail === 'string' && body.detail ? body.detail : 'HTTP ' + status);
    this.name = 'ApiError';
    this.status = status;
    /** the server's sentence, in the page's language (undefined when it sent none) */
    this.detail = typeof body.detail === 'string' && body.detail ? body.detail : undefined;
    /** a refusal's machine-readable code, where the route gives one ("stale", "name", ...) */
    this.code = typeof body.code === 'string' ? body.code : undefined;
    this.body = body;
  }
}

/** A request that got no answer (the network, or the server is down). */
export class NetworkError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** The page's CSRF token ('' on a page without one). */
export function csrfToken() {
  const meta = /** @type {HTMLMetaElement | null} */ (document.querySelector('meta[name="csrf-token"]'));
  return meta ? meta.content : '';
}

/**
 * A request to the API; resolves to the answer's JSON document ({} when it has none, as a 204).
 * @template [T=any]
 * @param {string} path
 * @param {{method?: string, body?: unknown, cache?: RequestCache}} [opts] method (GET), a body
 *   to send as JSON (none when undefined), the browser cache's part (RequestInit.cache)
 * @returns {Promise<T>}
 */
export async function request(path, opts = {}) {
  const method = opts.method || 'GET';
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  /** @type {RequestInit} */
  const init = { method, credentials: 'same-origin', headers };
  if (opts.cache) init.cache = opts.cache;
  if (method !== 'GET' && method !== 'HEAD') headers['X-CSRF-Token'] = csrfToken();
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(opts.body);
  }
  let r;
  try {
    r = await fetch(path, init);
  } catch (e) {
    throw new NetworkError(e instanceof Error ? e.message : String(e));
  }
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, data && typeof data === 'object' ? data : {});
  return data;
}

/**
 * @template [T=any]
 * @param {string} path
 * @returns {Promise<T>}
 */
export function getJSON(path) {
  return request(path);
}

/**
 * @template [T=any]
 * @param {string} path
 * @param {unknown} [body] sent as JSON ({} when left out)
 * @returns {Promise<T>}
 */
export function postJSON(path, body) {
  return request(path, { method: 'POST', body: body === undefined ? {} : body });
}

/**
 * @template [T=any]
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
export function putJSON(path, body) {
  return request(path, { method: 'PUT', body });
}

/**
 * @template [T=any]
 * @param {string} path
 * @returns {Promise<T>}
 */
export function deleteJSON(path) {
  return request(path, { method: 'DELETE' });
}

// The one way pages talk to the server: JSON over fetch, the session cookie, the CSRF header on writes.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
  get details() {
    return this.body.details || {};
  }
}

const csrf = document.querySelector('meta[name="csrf-token"]')?.content || "";

export async function api(path, options = {}) {
  return (await call(path, options)).data;
}

// A page of a paged list (GET /api/seeks, GET /api/games): its items and the cursor of the next page (null: the last).
export async function apiPage(path, { signal } = {}) {
  const { data, response } = await call(path, { signal });
  return { items: data, next: response.headers.get("X-Next-Cursor") };
}

async function call(path, { method = "GET", body, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrf) headers["X-CSRF-Token"] = csrf;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    signal,
  });
  if (response.status === 204) return { data: null, response };
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new ApiError(response.status, typeof data === "object" ? data : { message: data });
  return { data, response };
}

// The signed-in user, or null: one request for the page's life, however many modules ask at once,
// and none without a session (the page carries a CSRF token only when it has one).
let me;
export function currentUser() {
  if (me === undefined) {
    me = csrf
      ? api("/api/me").catch((err) => {
          if (err.status !== 401) {
            me = undefined; // a failure that is not "signed out": the next call asks again
            throw err;
          }
          return null;
        })
      : Promise.resolve(null);
  }
  return me;
}

// Text of an API error for a person: the message and every field's reasons.
export function explain(err) {
  if (!(err instanceof ApiError)) return String(err.message || err);
  const parts = [err.message];
  for (const [field, reasons] of Object.entries(err.details)) {
    if (field === "rule") continue;
    parts.push(`${field}: ${reasons.join("; ")}`);
  }
  return parts.join(" — ");
}

// Text of an API error for a person, without the fields' internal names: each field's reasons
// after the words for it (`fields`: name -> words; another field's reasons stand alone), else the
// message. Not both: the message says the reasons again (a malformed request's with the field's
// internal name), and a 429's message is its reason.
export function inWords(err, fields = {}) {
  if (!(err instanceof ApiError)) return String(err.message || err);
  const reasons = [];
  if (err.status !== 429) {
    for (const [field, list] of Object.entries(err.details)) {
      for (const reason of list) reasons.push(fields[field] ? `${fields[field]}: ${reason}` : reason);
    }
  }
  const text = reasons.join(" — ") || String(err.message || `Something went wrong (HTTP ${err.status})`);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

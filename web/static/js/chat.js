// The game page's Chat and Notes panels (docs/chat-and-notes.md).
//
// Chat: the game's players (and, in a club game, its arbiters) read and write it; anyone else is
// refused by the server, and the panel stays hidden.  New messages arrive on the chat's own
// stream.  Notes: the signed-in player's own notepad and hex notes; a hex note is added for the
// hex last selected on the board (the board says which with an `arbiter:hex` event), and every
// hex note is drawn as a small mark for its author (`arbiter:hex-notes`, heard by the board).
import { api, ApiError, currentUser, inWords } from "./api.js";
import { follow } from "./live.js";
import { clear, h } from "./dom.js";

const $ = (sel) => document.getElementById(sel);

// A time in words: "just now", "5 minutes ago", "3 hours ago", else the day and hour.
export function ago(iso, now = Date.now()) {
  const then = new Date(iso);
  const s = Math.max(0, Math.round((now - then.getTime()) / 1000));
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} minute${m === 1 ? "" : "s"} ago`;
  const hrs = Math.round(m / 60);
  if (hrs < 24) return `${hrs} hour${hrs === 1 ? "" : "s"} ago`;
  const d = Math.round(hrs / 24);
  if (d < 7) return `${d} day${d === 1 ? "" : "s"} ago`;
  return `on ${then.toLocaleDateString(undefined, { day: "numeric", month: "long", year: "numeric" })}`;
}

// -- chat ------------------------------------------------------------------------------------------
export async function chatPanel(gameId) {
  const box = $("chat-box");
  if (!box || !(await currentUser())) return;
  const st = { messages: [], muted: false, mayHide: false, limits: null };
  const base = `/api/games/${gameId}/chat`;

  async function loadAll() {
    const all = [];
    let after = null;
    let first = null;
    for (;;) {
      const page = await api(`${base}?limit=100${after ? `&after=${encodeURIComponent(after)}` : ""}`);
      first = first || page;
      all.push(...page.messages);
      if (!page.next) break;
      after = page.next;
    }
    st.messages = all;
    st.muted = first.muted;
    st.mayHide = first.may_hide;
    st.limits = first.limits;
  }

  try {
    await loadAll();
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404 || err.status === 401)) return; // not this chat's reader
    throw err;
  }
  box.hidden = false;
  $("chat-text").maxLength = st.limits.text_max;
  $("chat-limits").textContent = `At most ${st.limits.text_max.toLocaleString()} characters a message, ${st.limits.per_minute} messages a minute. Only the players and the game's arbiters read this chat.`;

  const log = $("chat-log");
  const render = () => {
    $("chat-mute").checked = st.muted;
    $("chat-body").hidden = st.muted;
    $("chat-muted-note").hidden = !st.muted;
    clear(
      log,
      st.messages.length ? st.messages.map(messageItem) : h("li", { class: "meta" }, "No messages yet."),
    );
    log.scrollTop = log.scrollHeight;
  };

  function messageItem(m) {
    const who = m.role === "arbiter" ? `${m.author} (arbiter)` : m.author;
    const item = h(
      "li",
      { class: `chat-message${m.mine ? " mine" : ""}${m.hidden ? " hidden-message" : ""}`, id: `chat-${m.number}` },
      h("span", { class: "chat-head" }, h("strong", {}, m.mine ? `${who} (you)` : who), " ", h("time", { datetime: m.at, class: "meta" }, ago(m.at))),
      h("p", { class: "chat-text" }, m.text),
      m.hidden && st.mayHide ? h("p", { class: "meta" }, `Hidden from the players by ${m.hidden_by}: ${m.hidden_reason}`) : null,
    );
    if (st.mayHide && !m.hidden) item.append(hideControl(m));
    return item;
  }

  function hideControl(m) {
    const wrap = h("span", { class: "chat-hide" });
    const open = h("button", { type: "button", class: "link", "aria-label": `Hide message ${m.number} by ${m.author}` }, "Hide");
    open.addEventListener("click", () => {
      const input = h("input", { type: "text", maxlength: st.limits.reason_max, required: true, "aria-label": "Why it is hidden (the players read this)", placeholder: "Reason shown to the players" });
      const error = h("span", { class: "error", role: "alert" });
      const form = h(
        "form",
        { class: "chat-hide-form" },
        input,
        h("button", { type: "submit" }, "Hide it"),
        h("button", { type: "button", class: "link", onclick: () => render() }, "Cancel"),
        error,
      );
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        try {
          await api(`${base}/${m.number}/hide`, { method: "POST", body: { reason: input.value } });
          await loadAll();
          render();
        } catch (err) {
          error.textContent = inWords(err, { reason: "Reason" });
        }
      });
      clear(wrap, form);
      input.focus();
    });
    wrap.append(open);
    return wrap;
  }

  const form = $("chat-form");
  const text = $("chat-text");
  const count = $("chat-count");
  const showCount = () => (count.textContent = `${text.value.length} / ${st.limits.text_max}`);
  text.addEventListener("input", showCount);
  text.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) form.requestSubmit();
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("chat-error").textContent = "";
    try {
      const message = await api(base, { method: "POST", body: { text: text.value } });
      if (!st.messages.some((m) => m.number === message.number)) st.messages.push(message);
      text.value = "";
      showCount();
      render();
    } catch (err) {
      $("chat-error").textContent = inWords(err, { text: "Message" });
    }
  });
  $("chat-mute").addEventListener("change", async (ev) => {
    try {
      const answer = await api(`${base}/mute`, { method: "PUT", body: { muted: ev.target.checked } });
      st.muted = answer.muted;
      if (!st.muted) await loadAll();
      render();
    } catch (err) {
      $("chat-error").textContent = inWords(err);
    }
  });
  showCount();
  render();
  setInterval(() => {
    for (const el of log.querySelectorAll("time")) el.textContent = ago(el.getAttribute("datetime"));
  }, 60000);
  follow(() => `${base}/stream`, {
    chat: async () => {
      await loadAll();
      render();
    },
  });
}

// -- notes -----------------------------------------------------------------------------------------
export async function notesPanel(gameId) {
  const box = $("notes-box");
  if (!box || !(await currentUser())) return;
  const base = `/api/games/${gameId}/notes`;
  let notes;
  try {
    notes = await api(base);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404 || err.status === 401)) return; // not a player
    throw err;
  }
  box.hidden = false;
  const text = $("notes-text");
  text.maxLength = notes.limits.notepad_max;
  $("hex-note-text").maxLength = notes.limits.hex_note_max;
  let hex = null; // the hex last selected on the board

  const render = () => {
    text.value = notes.text;
    $("notes-shared").checked = notes.shared;
    $("notes-saved").textContent = notes.updated ? `Saved ${ago(notes.updated)}.` : "";
    clear(
      $("hex-notes"),
      notes.hexes.length
        ? notes.hexes.map((n) =>
            h(
              "li",
              {},
              h("strong", {}, n.hex), `: ${n.text} `,
              h("button", { type: "button", class: "link", "aria-label": `Remove the note on ${n.hex}`, onclick: () => removeHex(n.hex) }, "Remove"),
            ),
          )
        : h("li", { class: "meta" }, "No hex notes: select a hex on the map, then pin a note to it."),
    );
    document.dispatchEvent(new CustomEvent("arbiter:hex-notes", { detail: { hexes: notes.hexes } }));
  };

  const fail = (err) => ($("notes-error").textContent = inWords(err, { text: "Note", hex: "Hex" }));
  async function change(path, method, body) {
    $("notes-error").textContent = "";
    try {
      notes = await api(path, { method, body });
      render();
      return true;
    } catch (err) {
      fail(err);
      return false;
    }
  }
  async function removeHex(name) {
    await change(`${base}/hexes/${encodeURIComponent(name)}`, "DELETE");
  }

  $("notes-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    change(base, "PUT", { text: text.value });
  });
  $("notes-shared").addEventListener("change", (ev) => change(`${base}/share`, "POST", { shared: ev.target.checked }));
  const hexForm = $("hex-note-form");
  const setHex = (name, words) => {
    hex = name;
    $("hex-note-hex").textContent = name ? `Note on ${words || name}` : "Select a hex on the map first";
    $("hex-note-text").disabled = !name;
    $("hex-note-add").disabled = !name;
    const existing = name && notes.hexes.find((n) => n.hex === name);
    $("hex-note-text").value = existing ? existing.text : "";
  };
  document.addEventListener("arbiter:hex", (ev) => setHex(ev.detail.hex, ev.detail.name));
  hexForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (hex && (await change(`${base}/hexes/${encodeURIComponent(hex)}`, "PUT", { text: $("hex-note-text").value }))) {
      $("hex-note-text").value = "";
    }
  });
  setHex(null);
  render();
}

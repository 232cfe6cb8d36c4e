// A live stream (server-sent events) that keeps itself open.  The browser reconnects by itself
// after a stream ends, but gives up for good when the server refuses one (429 too many streams
// from this browser, 503 the server is full or the store is down): then this opens a new one after
// a pause that doubles up to a minute.  `url()` is asked anew each time (e.g. `since` the version
// now shown); `on` maps event names to handlers, and `state(text)` hears "connecting", "open",
// "reconnecting" and "waiting".

export function follow(url, on, state = () => {}) {
  let pause = 5000;
  const open = () => {
    const source = new EventSource(url());
    state("connecting");
    source.addEventListener("open", () => {
      pause = 5000;
      state("open");
    });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) return state("reconnecting");
      state("waiting");
      setTimeout(open, pause);
      pause = Math.min(pause * 2, 60000);
    });
    for (const [name, handler] of Object.entries(on)) source.addEventListener(name, handler);
  };
  open();
}

// A paged list (GET /api/games, /api/seeks, /api/clubs … whose X-Next-Cursor names the next page): the first page in
// `list`, then a "More …" button (`more`, hidden while there is no next page) that appends the
// next page, one request at a time, until the last.
import { apiPage, explain } from "./api.js";
import { toast } from "./dom.js";

export const PAGE = 50;

// `path` with its filters ("/api/games?mine=true"); `row(item, extra)` an item's element, given
// what the promise `extra` (asked for together with the first page, e.g. the systems' titles)
// gives; `empty()` what the list says when it has no item (none: the list stays empty).  Returns
// the first page's items; a failure to read the first page is the caller's to show, a failure of
// "More" is a toast and the button stays.
export async function pagedList({ path, list, more, row, empty, extra }) {
  const url = (after) => `${path}${path.includes("?") ? "&" : "?"}limit=${PAGE}${after ? `&after=${encodeURIComponent(after)}` : ""}`;
  more.hidden = true;
  more.onclick = null;
  const [first, context] = await Promise.all([apiPage(url(null)), extra]);
  const make = (item) => row(item, context);
  list.replaceChildren(...(first.items.length ? first.items.map(make) : empty ? [empty()] : []));
  let next = first.next;
  more.hidden = !next;
  let loading = false;
  more.onclick = async () => {
    if (!next || loading) return; // one page at a time: a second click waits for the first
    // aria-disabled, not disabled: a disabled button loses the keyboard focus
    loading = true;
    more.setAttribute("aria-disabled", "true");
    list.setAttribute("aria-busy", "true");
    try {
      const page = await apiPage(url(next));
      const rows = page.items.map(make);
      list.append(...rows);
      next = page.next;
      if (!next) {
        const hadFocus = document.activeElement === more;
        more.hidden = true;
        // the button is gone: keyboard focus goes on to the first game it brought, not to the page's top
        const target = hadFocus && rows.length ? rows[0].querySelector("a, button") : null;
        if (target) target.focus();
      }
    } catch (err) {
      toast(explain(err));
    } finally {
      loading = false;
      more.removeAttribute("aria-disabled");
      list.removeAttribute("aria-busy");
    }
  };
  return first.items;
}

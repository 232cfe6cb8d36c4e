// A correspondence clock in words, and from a form's fields: shared by the open-games page, the home
// page's "Start a game" and its invitations (a module of its own, so that importing these runs no
// page's script: home.js once imported seeks.js, whose page script then failed on the home page).
export function clockText(clock) {
  if (!clock) return "no clock";
  return clock.kind === "per-turn" ? `${clock.days} days per side per game turn` : `${clock.days} days per move`;
}

export function clockFrom(data) {
  if (!data.clock_kind) return null;
  return { kind: data.clock_kind, days: Number(data.clock_days), vacation_days: Number(data.vacation_days || 0) };
}

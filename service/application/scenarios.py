"""The club scenario library: clubs' own scenarios, edited as events, checked by the same code
path as ``arbiter scenarios check``, published as numbered versions with content hashes, shared,
forked, exported (JSON, counter list as CSV) and pinned by the games started from them.
See docs/scenario-library.md."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from service.application.clubs import ClubService
from service.application.counter_list import csv_units, unit_changes
from service.application.draft_images import DraftImages, image_of
from service.application.quotas import QuotaService
from service.application.store import ArbiterStore
from service.domain.clubs import Club
from service.domain.draft_limits import DraftLimits
from service.domain.errors import Forbidden, Invalid, NotFound, Unprocessable
from service.domain.quotas import Holdings
from service.domain.scenarios import (
    ClubScenario,
    is_wrapper,
    plain,
)
from service.domain.users import User
from service.rules.base import CustomScenarios, RulesSystem, ScenarioError, ScenarioInfo, State
from service.rules.registry import Registry
from service.rules.scenario.model import describe_options, with_declared
from service.rules.scenario.placeholders import topics, unwrap
from service.rules.scenario.words import field_place
from service.views.base import PAGE_MAX, cut_page, every_page, page_limit
from service.views.runner import ProjectionRunner
from service.views.scenarios import LibraryKey, ScenariosView, TitleKey


# -- the one check path (shared with `arbiter scenarios check`) ----------------------------------
def check_path(path: Path, system: str | None, registry: Registry) -> list[dict[str, str]]:
    """``[{"level", "place", "message"}]`` of a scenario file: its system's ``scenario_checks``
    when it has them (``system`` or the file's own), else the format's ``check_file``; a file that
    names no known system is one error saying so (the checks to run depend on it)."""
    try:
        declared = json.loads(path.read_text(encoding="utf-8")).get("system")
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError) as exc:
        return [{"level": "error", "place": str(path), "message": f"not a JSON object: {exc}"}]
    name = system or declared
    if not name or name not in registry:  # which checks apply depends on the system: say so
        known = ", ".join(sorted(registry.names()))
        message = (
            f"unknown rules system {name!r} (one of {known})"
            if name
            else f'the file names no rules system: give "system" (one of {known}) or --system'
        )
        return [{"level": "error", "place": "system", "message": message}]
    checks = registry.get(name).scenario_checks
    if checks is not None:
        return list(checks.check_scenario_file(str(path)))
    from service.rules.scenario import check_file

    return check_file(str(path))


def check_document(
    registry: Registry, document: Mapping[str, Any], system: str | None = None
) -> list[dict[str, str]]:
    """:func:`check_path` of a document (written to a private temporary file)."""
    with tempfile.TemporaryDirectory(prefix="arbiter-scenario-") as folder:
        path = Path(folder) / "scenario.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return check_path(path, system or str(document.get("system") or "") or None, registry)


def options_of(
    document: Mapping[str, Any], declared: Mapping[str, Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """A published document's options as a form offers them (checked when it was published),
    and after them the options its game's rules module declares for every scenario
    (``RulesSystem.declared_options``) that the document does not declare itself."""
    return describe_options(with_declared(plain(document.get("options")) or {}, declared or {}))


def report_of(report: Sequence[Mapping[str, str]], place: Callable[[str], str]) -> dict[str, Any]:
    """A check report as ``errors`` (``{"place", "field", "reason"}``) and ``placeholders``
    (``{"place", "field", "note"}``), each field's place in words by ``place`` (the game's)."""
    errors, placeholders = [], []
    for item in report:
        field = item.get("place", "")
        if item.get("level") == "error":
            errors.append({"place": place(field), "field": field, "reason": item["message"]})
        elif str(item.get("message", "")).startswith("placeholder: "):
            note = item["message"][len("placeholder: ") :]
            placeholders.append({"place": place(field), "field": field, "note": note})
    return {"errors": errors, "placeholders": placeholders}


def custom_of(rules: RulesSystem, field: str = "scenario") -> CustomScenarios:
    """The game's capability for a club's documents (what its map or table holds, how it is
    drawn and said); a 422 naming ``field`` for a game that plays only its own scenarios."""
    custom = rules.custom_scenarios
    if custom is None:
        raise Unprocessable(
            f"{rules.title} starts no game from a club's scenario",
            {field: ["this system plays only its own scenarios"]},
        )
    return custom


def _said(error: ScenarioError) -> Unprocessable:
    return Unprocessable(error.message, error.problems)


@dataclass(frozen=True)
class PinnedScenario:
    """One published version of a club's scenario, as a game starts from it."""

    scenario: ClubScenario
    number: int
    hash: str
    document: dict[str, Any]
    rules: RulesSystem

    @property
    def game_scenario(self) -> str:
        """The game's scenario name: ``<club scenario id>@<version>``."""
        return f"{self.scenario.id}@{self.number}"

    @property
    def info(self) -> ScenarioInfo:
        _, placeholders = unwrap(self.document)
        return ScenarioInfo(
            id=self.game_scenario,
            system=self.scenario.system,
            title=str(plain(self.document.get("title")) or self.scenario.title),
            sides=tuple(plain(self.document.get("sides")) or ()),
            description=str(plain(self.document.get("description", ""))),
            placeholder=bool(placeholders),
            options=tuple(options_of(self.document, self.rules.declared_options)),
            placeholder_topics=tuple(topics(placeholders)),
        )

    def default_options(self) -> dict[str, Any]:
        return dict(custom_of(self.rules).default_options_from(self.document))

    def initial_state(self, options: Mapping[str, Any]) -> State:
        state: State = custom_of(self.rules).initial_state_from(self.document, options)
        return state

    @property
    def labels(self) -> dict[str, Any]:
        return {
            "title": self.info.title,
            "club_scenario": str(self.scenario.id),
            "scenario_version": self.number,
            "scenario_hash": self.hash,
            "scenario_base": self.scenario.base,
        }


@dataclass(frozen=True)
class ScenarioChoice:
    """The scenario a game, ladder or open game plays: a system's own (``source`` None) or one
    published version of a club's scenario.  ``name`` is what is stored and what the game's
    ``scenario`` becomes: the built-in id, or ``<club scenario id>@<version>``."""

    name: str
    info: ScenarioInfo
    source: PinnedScenario | None

    def default_options(self, rules: RulesSystem) -> dict[str, Any]:
        if self.source is not None:
            return self.source.default_options()
        return dict(rules.default_options(self.name))

    def initial_state(self, rules: RulesSystem, options: Mapping[str, Any]) -> State:
        if self.source is not None:
            return self.source.initial_state(options)
        state: State = rules.initial_state(self.name, options)
        return state

    def check_options(self, rules: RulesSystem, options: Mapping[str, Any]) -> None:
        """Raise a 422 naming each ``options.<name>`` that is unknown or has a bad value, as a
        new game would (its first state is built from the defaults with ``options`` over them)."""
        try:
            self.initial_state(rules, {**self.default_options(rules), **dict(options)})
        except ScenarioError as exc:
            raise Unprocessable(exc.message, exc.option_problems()) from None


class ScenarioLibrary:
    """Club scenarios: commands (admins of the owning club), reads (members; other clubs the
    shared and public ones; anyone the public ones), and games pinned to a version."""

    def __init__(
        self,
        store: ArbiterStore,
        registry: Registry,
        clubs: ClubService,
        limits: DraftLimits | None = None,
        runner: ProjectionRunner | None = None,
        quotas: QuotaService | None = None,
    ) -> None:
        """``runner``: the persisted club scenarios' view's (``projections.scenarios``): the
        lists of a club's scenarios and of the library read it (a service without it resolves
        and reads scenarios by id only)."""
        self.limits = limits or DraftLimits()
        self.store = store
        #: a draft's ``map.image`` held to the images the store keeps (issue 44)
        self.images = DraftImages(store)
        self.quotas = quotas or QuotaService(store)
        self.registry = registry
        self.clubs = clubs
        self.runner = runner
        #: the titles of the systems' own scenarios (shipped files: they never change while the
        #: server runs), so a list of open games does not read a scenario file per row
        self._titles: dict[tuple[str, str], str] = {}

    # -- commands ---------------------------------------------------------------------------------
    def create(
        self,
        club_ref: str,
        by: User,
        *,
        system: str,
        title: str,
        base: str | None = None,
        blank: Mapping[str, Any] | None = None,
    ) -> ClubScenario:
        club = self.clubs.require_role(club_ref, by, "admin")
        rules = self._system(system)
        if (base is None) == (blank is None):
            raise Invalid("start from a scenario or a blank map", {"base": ["give base or blank"]})
        if base is not None:
            document = self.builtin_document(rules, base)
        else:
            try:
                document = custom_of(rules, "system").blank_document(blank or {})
            except ScenarioError as exc:
                raise _said(exc) from None
        document.setdefault("system", system)  # Barcelona's tables name no system of their own
        scenario = ClubScenario.create(
            str(club.id), system, base or "blank", title, document, str(by.id), self.limits
        )
        self.store.commit(scenario, *self._charged(scenario, by))
        return scenario

    def import_document(
        self,
        club_ref: str,
        by: User,
        document: Any,
        *,
        title: str | None = None,
        publish: bool = False,
    ) -> ClubScenario:
        """A club's scenario from a scenario file's JSON (the CLI's ``scenarios import``)."""
        club = self.clubs.require_role(club_ref, by, "admin")
        if not isinstance(document, dict):
            raise Invalid("not a scenario", {"document": ["a JSON object"]})
        system = str(document.get("system") or "")
        self._system(system)
        title = title or str(plain(document.get("title")) or document.get("id") or "")
        if image_of(document) is not None:  # an exported version: its image must be stored here
            self.images.check(image_of(document), None)
        scenario = ClubScenario.create(
            str(club.id),
            system,
            str(document.get("id") or "imported"),
            title,
            document,
            str(by.id),
            self.limits,
        )
        if publish:
            checked = self.problems(scenario.draft, system)
            scenario.publish(checked["errors"], str(by.id), "imported")
        self.store.commit(scenario, *self._charged(scenario, by))
        return scenario

    def edit(self, ref: str, by: User, changes: Sequence[Mapping[str, Any]]) -> ClubScenario:
        scenario = self._writable(ref, by)
        changes = self.images.checked_changes(scenario, changes)
        scenario.edit(changes, str(by.id), self.limits)
        self._save(scenario)
        return scenario

    def import_units_csv(self, ref: str, by: User, text: str) -> tuple[ClubScenario, int]:
        """Make the counter list the CSV's; returns the scenario and the number of changes."""
        scenario = self._writable(ref, by)
        changes = unit_changes(scenario.draft, csv_units(text))
        if changes:
            scenario.edit(changes, str(by.id), self.limits)
            self._save(scenario)
        return scenario, len(changes)

    def publish(self, ref: str, by: User, note: str = "") -> ClubScenario:
        scenario = self._writable(ref, by)
        checked = self.problems(scenario.draft, scenario.system)
        scenario.publish(checked["errors"], str(by.id), note)
        self._save(scenario)
        return scenario

    def share(self, ref: str, by: User, sharing: str) -> ClubScenario:
        scenario = self._writable(ref, by)
        scenario.share(sharing, str(by.id))
        self._save(scenario)
        return scenario

    def fork(
        self, ref: str, by: User, club_ref: str, version: int | None, title: str = ""
    ) -> ClubScenario:
        club = self.clubs.require_role(club_ref, by, "admin")
        origin = self.get(ref, by)
        number = origin.published(version)["version"] if origin.versions else None
        if number is None:
            raise Unprocessable("not published yet", {"scenario": ["nothing to fork yet"]})
        forked = ClubScenario.fork(origin, number, str(club.id), title, str(by.id))
        self.store.commit(forked, *self._charged(forked, by))
        return forked

    def _charged(self, scenario: ClubScenario, by: User) -> list[Holdings]:
        """The holdings of ``by`` and of the scenario's club with one more scenario each (409
        ``limit_reached`` past ``ARBITER_SCENARIOS_PER_USER`` or ``_PER_CLUB``)."""
        return self.quotas.make_scenario(str(by.id), scenario.club, str(scenario.id))

    # -- reads ----------------------------------------------------------------------------------
    def get(self, ref: str, user: User | None) -> ClubScenario:
        scenario = self._load(ref)
        if not self._may_read(scenario, user):
            raise NotFound(f"no club scenario {ref}", {"scenario": ["unknown scenario"]})
        return scenario

    def problems(self, document: Mapping[str, Any], system: str | None = None) -> dict[str, Any]:
        """The draft's errors and placeholders, each at its place (``arbiter scenarios check``'s
        code path)."""
        name = system or str(plain(document.get("system")) or "")
        custom = self.registry.get(name).custom_scenarios if name in self.registry else None
        place = (lambda field: custom.place_of(field, document)) if custom else field_place
        return report_of(check_document(self.registry, document, system), place)

    def view(self, scenario: ClubScenario, user: User | None, *, draft: bool = True) -> dict:
        member = user is not None and self._member(scenario.club, user)
        admin = user is not None and self.clubs.has_role(scenario.club, user.id, "admin")
        body: dict[str, Any] = {
            "id": str(scenario.id),
            "club": scenario.club,
            "club_name": self._club_name(scenario.club),
            "system": scenario.system,
            "base": scenario.base,
            "title": scenario.title,
            "sharing": scenario.sharing,
            "forked_from": scenario.forked_from,
            "latest": scenario.latest,
            "versions": [
                {k: v[k] for k in ("version", "hash", "note", "at")} for v in scenario.versions
            ],
            "may_edit": admin,
        }
        if member and draft:
            checked = self.problems(scenario.draft, scenario.system)
            body.update(
                edits=scenario.edits,
                document=scenario.draft,
                errors=checked["errors"],
                placeholders=checked["placeholders"],
                completeness=completeness(
                    placeholder_count(scenario.original), placeholder_count(scenario.draft)
                ),
                publishable=not checked["errors"],
            )
        return body

    def summary(self, scenario: ClubScenario) -> dict[str, Any]:
        latest = scenario.versions[-1] if scenario.versions else None
        return {
            "id": str(scenario.id),
            "club": scenario.club,
            "club_name": self._club_name(scenario.club),
            "system": scenario.system,
            "base": scenario.base,
            "title": scenario.title,
            "sharing": scenario.sharing,
            "latest": scenario.latest,
            "hash": latest["hash"] if latest else None,
            "versions": [
                {
                    "version": v["version"],
                    "hash": v["hash"],
                    "options": options_of(v["document"], self._declared(scenario.system)),
                }
                for v in scenario.versions
            ],
            # the latest version's sides: what a form starting a game from it asks players for
            "sides": list(plain(latest["document"].get("sides")) or []) if latest else [],
        }

    def for_club(
        self,
        club_ref: str,
        user: User | None,
        *,
        limit: int = 50,
        after: TitleKey | None = None,
    ) -> tuple[list[dict[str, Any]], TitleKey | None]:
        """A page of a club's scenarios the caller may read, by title, with their versions and
        hashes, after the key ``after``; and the key to the next page (None: the last)."""
        club, limit = str(self.clubs.get(club_ref).id), page_limit(limit)
        sharing: tuple[str, ...] | None = ("public",)
        if user is not None and self._member(club, user):
            sharing = None  # every one of them
        elif user is not None and self.clubs.clubs_of(str(user.id)):
            sharing = ("shared", "public")
        rows, key = cut_page(
            self._view.of_club(club, sharing, limit + 1, after), limit, lambda r: r["key"]
        )
        found = self._loaded([row["id"] for row in rows])
        return [self.summary(s) for s in found if self._may_read(s, user)], key

    def of_club(self, club_ref: str) -> list[ClubScenario]:
        """Every scenario of a club by title (the operator's view: the CLI; a page at a time)."""
        cid = str(self.clubs.get(club_ref).id)

        def read(after: TitleKey | None) -> tuple[list[dict[str, Any]], TitleKey | None]:
            return cut_page(
                self._view.of_club(cid, None, PAGE_MAX + 1, after), PAGE_MAX, lambda r: r["key"]
            )

        return self._loaded([row["id"] for row in every_page(read)])

    def operator_document(self, ref: str, version: int | None, draft: bool) -> dict[str, Any]:
        """A version (``None``: the latest) or the draft, for the operator (the CLI)."""
        scenario = self._load(ref)
        if draft:
            return copy.deepcopy(scenario.draft)
        return copy.deepcopy(scenario.published(version)["document"])

    def library(
        self,
        user: User | None,
        system: str | None = None,
        *,
        limit: int = 50,
        after: LibraryKey | None = None,
    ) -> tuple[list[dict[str, Any]], LibraryKey | None]:
        """A page of the club scenarios the caller may start a game from (published, and theirs
        or shared or public), by system then title, after the key ``after``; and the key to the
        next page (None: the last)."""
        limit = page_limit(limit)
        clubs = self.clubs.clubs_of(str(user.id)) if user is not None else ()
        sharing = ("public", "shared") if clubs else ("public",)
        rows, key = cut_page(
            self._view.published(system, clubs, sharing, limit + 1, after),
            limit,
            lambda r: r["key"],
        )
        found = [
            self.summary(s)
            for s in self._loaded([row["id"] for row in rows])
            if s.versions and self._may_read(s, user) and system in (None, s.system)
        ]
        return found, key

    def document(self, ref: str, user: User | None, version: int | None) -> dict[str, Any]:
        """A published version's document (``None``: the draft, for members)."""
        return copy.deepcopy(self._version(self.get(ref, user), user, version))

    def diff(self, ref: str, user: User | None, old: int, new: int | None) -> list[str]:
        """``new`` ``None``: the draft."""
        scenario = self.get(ref, user)
        custom = custom_of(self._system(scenario.system))
        return custom.changes(
            self._version(scenario, user, old), self._version(scenario, user, new)
        )

    def _version(
        self, scenario: ClubScenario, user: User | None, version: int | None
    ) -> dict[str, Any]:
        """A version's document as the aggregate holds it (read it, never change it)."""
        if version is None:
            if user is None or not self._member(scenario.club, user):
                raise Forbidden("only members see the draft", {"version": ["give a version"]})
            return scenario.draft  # type: ignore[no-any-return]
        return scenario.published(version)["document"]  # type: ignore[no-any-return]

    def game_board(self, ref: str, version: int) -> dict[str, Any]:
        """The map of a published version as its games draw it: seen by whoever sees the game
        (a game shows its map to its players and spectators, members of the club or not)."""
        return self._board(copy.deepcopy(self._load(ref).published(version)["document"]))

    def board(self, ref: str, user: User | None, version: int | None) -> dict[str, Any]:
        """The map of a version (or the draft) as data for drawing."""
        return self._board(self.document(ref, user, version))

    def _board(self, document: dict[str, Any]) -> dict[str, Any]:
        """The map as data for drawing, with its placeholder data by topic (what players read)."""
        found = topics(unwrap(document)[1])
        return {**self._drawn(document), "placeholder_topics": found}

    def _drawn(self, document: dict[str, Any]) -> dict[str, Any]:
        """The document's map or table drawn by its game (errors and all)."""
        custom = custom_of(self._system(str(plain(document.get("system")))), "system")
        try:
            return custom.drawn(document)
        except ScenarioError as exc:
            raise _said(exc) from None

    def pinned(self, ref: str, user: User | None, version: int | None) -> PinnedScenario:
        """A published version to start a game from (the latest when ``version`` is None)."""
        scenario = self.get(ref, user)
        found = scenario.published(version)
        return PinnedScenario(
            scenario,
            found["version"],
            found["hash"],
            copy.deepcopy(found["document"]),
            self._system(scenario.system),
        )

    def choose(
        self, system: str, scenario: str, version: int | None = None, user: User | None = None
    ) -> ScenarioChoice:
        """The one place games' neighbours (ladders, open games) resolve the scenario they are
        asked for: a system's own id, a club scenario's id (``version``: its published version,
        default the latest) or ``<id>@<version>``; a club's scenario only if ``user`` may read
        it.  Unknown scenarios and versions are 422s naming ``scenario``/``scenario_version``."""
        rules = self._system(system)
        ref, pinned_at = self._split(scenario)
        if pinned_at is not None and version not in (None, pinned_at):
            raise Unprocessable(
                "two versions named",
                {"scenario_version": [f"the scenario names version {pinned_at}"]},
            )
        version = version if version is not None else pinned_at
        if version is None and not self.is_club_scenario(ref):
            info = {s.id: s for s in rules.scenarios()}.get(scenario)
            if info is None:
                known = ", ".join(s.id for s in rules.scenarios())
                raise Unprocessable(
                    f"no scenario {scenario!r} in {system}",
                    {"scenario": [f"unknown scenario; known: {known} or a club's scenario"]},
                )
            return ScenarioChoice(scenario, info, None)
        pinned = self.pinned(ref, user, version)
        if pinned.scenario.system != system:
            raise Invalid(
                "the scenario is of another system",
                {"system": [f"this scenario is for {pinned.scenario.system}"]},
            )
        return ScenarioChoice(pinned.game_scenario, pinned.info, pinned)

    def chosen(self, system: str, name: str) -> ScenarioChoice:
        """A choice stored earlier (a ladder's or challenge's or open game's ``scenario``), read
        back without asking again who may read it: whoever the ladder or open game admitted
        plays the version it pinned."""
        ref, version = self._split(name)
        if version is None:
            return self.choose(system, name)
        scenario = self._load(ref)
        found = scenario.published(version)
        pinned = PinnedScenario(
            scenario,
            found["version"],
            found["hash"],
            copy.deepcopy(found["document"]),
            self._system(scenario.system),
        )
        return ScenarioChoice(pinned.game_scenario, pinned.info, pinned)

    def title_of(self, system: str, name: str) -> str:
        """How a person reads a stored scenario name: its title (a club's with club and
        version), the name itself when it is unknown."""
        if self._split(name)[1] is None and (system, name) in self._titles:
            return self._titles[(system, name)]
        try:
            choice = self.chosen(system, name)
        except (NotFound, Unprocessable, Invalid):
            return name
        if choice.source is None:
            self._titles[(system, name)] = choice.info.title
            return choice.info.title
        club = self._club_name(choice.source.scenario.club)
        return f"{choice.info.title} ({club}, version {choice.source.number})"

    def may_play(self, name: str, user: User | None) -> bool:
        """Whether ``user`` may read the scenario a stored name plays (a system's own: yes)."""
        ref, version = self._split(name)
        if version is None:
            return True
        try:
            return self._may_read(self._load(ref), user)
        except NotFound:
            return False

    @staticmethod
    def _split(name: str) -> tuple[str, int | None]:
        ref, at, number = name.rpartition("@")
        if at and number.isdigit():
            return ref, int(number)
        return name, None

    def is_club_scenario(self, ref: str) -> bool:
        try:
            self._load(ref)
        except NotFound:
            return False
        return True

    # -- built-in documents ------------------------------------------------------------------------
    def builtin_document(self, rules: RulesSystem, scenario: str) -> dict[str, Any]:
        """A system's shipped scenario file as JSON, placeholders and all."""
        import inspect

        known = {s.id for s in rules.scenarios()}
        if scenario not in known:
            raise Unprocessable(
                f"no scenario {scenario!r} in {rules.name}",
                {"base": [f"known: {', '.join(sorted(known))}"]},
            )
        package = Path(inspect.getfile(type(rules))).parent
        for path in sorted(package.rglob(f"{scenario}.json")):
            raw = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(raw, dict) and raw.get("id") == scenario:
                return raw  # type: ignore[no-any-return]
        raise Unprocessable(
            f"{rules.title} keeps {scenario} in no scenario file",
            {"base": ["not a file this library can start from"]},
        )

    # -- helpers --------------------------------------------------------------------------------
    def _declared(self, name: str) -> Mapping[str, Mapping[str, Any]]:
        """The options the rules module of system ``name`` declares for every scenario."""
        return self.registry.get(name).declared_options if name in self.registry else {}

    def _system(self, name: str) -> RulesSystem:
        if name not in self.registry:
            raise Unprocessable(
                f"no rules system {name!r}",
                {"system": [f"known: {', '.join(self.registry.names())}"]},
            )
        return self.registry.get(name)

    def _load(self, ref: str | UUID) -> ClubScenario:
        found: ClubScenario = self.store.get_as(ref, ClubScenario, "scenario", "club scenario")
        return found

    def _writable(self, ref: str, by: User) -> ClubScenario:
        scenario = self.get(ref, by)
        self.clubs.require_role(scenario.club, by, "admin")
        return scenario

    def _save(self, scenario: ClubScenario) -> None:
        from service.domain.errors import Conflict

        self.store.commit(scenario, conflict=Conflict("the scenario changed meanwhile; reload"))

    def _member(self, club: str, user: User) -> bool:
        try:
            return str(user.id) in self.clubs.get(club).members
        except NotFound:
            return False

    def _may_read(self, scenario: ClubScenario, user: User | None) -> bool:
        if scenario.sharing == "public":
            return True
        if user is None:
            return False
        if self._member(scenario.club, user):
            return True
        if scenario.sharing != "shared":
            return False
        return bool(self.clubs.clubs_of(str(user.id)))

    def _club(self, ref: str) -> Club:
        return self.clubs.get(ref)

    def _club_name(self, ref: str) -> str:
        try:
            return self.clubs.get(ref).name
        except NotFound:
            return ""

    @property
    def _view(self) -> ScenariosView:
        view = self.runner.view if self.runner is not None else None
        assert isinstance(view, ScenariosView), "this library was made without its view"
        return view

    def _loaded(self, ids: list[str]) -> list[ClubScenario]:
        """The scenarios the view names (one it names and the store has not: left out)."""
        found = []
        for sid in ids:
            try:
                found.append(self._load(sid))
            except NotFound:
                continue
        return found


def placeholder_count(document: Mapping[str, Any]) -> int:
    """The values still placeholders, and a table still marked ``"placeholder": true``."""
    return len(unwrap(document)[1]) + (document.get("placeholder") is True)


def completeness(at_start: int, now: int) -> int:
    """How complete a scenario is, in percent: the share of its starting placeholders replaced or
    confirmed (100 when it started with none and has none)."""
    if at_start == 0:
        return 100 if now == 0 else 0
    return max(0, min(100, round(100 * (at_start - now) / at_start)))


__all__ = [
    "PinnedScenario",
    "ScenarioLibrary",
    "check_document",
    "check_path",
    "custom_of",
    "is_wrapper",
]

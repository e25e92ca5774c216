"""The friendly Python face of the rules core: :class:`Position`.

A Position wraps one compiled ``CorePosition``; it checks every action that
comes from outside, speaks docs/record-format.md's action forms, and keeps the history of
a game that started from a deal so that it can write its record.

It sits above records.py and snapshot.py: it reads and writes both formats,
and neither of them knows about it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from . import core
from .actions import Action, trusted_action, trusted_fill
from .errors import CacaoError, IllegalActionError, RecordError
from .features import N_ACTION_FEATURES, N_FEATURES
from .formats import PHASES, tile_json
from .records import Result, check_deal, check_result, parse_record
from .rules import DIRECTIONS, JUNGLE_TILES, WORKER_TILES
from .snapshot import dump_snapshot, load_observation, load_snapshot, snapshot_text

if TYPE_CHECKING:
    import numpy as np

ACTION_KINDS = ("place", "overbuild", "discard", "resolve")


@dataclass(frozen=True)
class Temple:
    """A temple on the board at (x, y): the workers each seat's top worker
    tiles turn to it, and the gold its majority would give each seat if the
    game ended now."""

    x: int
    y: int
    workers: tuple[int, ...]
    awards: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "workers": list(self.workers), "awards": list(self.awards)}


@dataclass(frozen=True)
class Score:
    """One seat's gold if the game ended now, by part: gold so far, the temple
    majorities' awards, the sun tokens' gold and the water track space's value.
    Once the game is over, ``total`` is the seat's final gold."""

    gold: int
    temples: int
    sun: int
    water: int
    total: int

    def to_json(self) -> dict[str, int]:
        return {"gold": self.gold, "temples": self.temples, "sun": self.sun,
                "water": self.water, "total": self.total}


@dataclass
class Report:
    """What one applied action did, for front ends that show it."""

    action: Action
    placed: list[dict[str, Any]] = field(default_factory=list)
    activations: list[dict[str, Any]] = field(default_factory=list)
    gains: list[dict[str, int]] = field(default_factory=list)
    drew: bool = False
    drawn: str | None = None
    refill: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action.to_json(), "placed": self.placed,
                "activations": self.activations, "gains": self.gains, "drew": self.drew,
                "drawn": self.drawn, "refill": self.refill}


class Position:
    """A Cacao position at a decision point.

    Create one with :meth:`new`, :meth:`from_record`, :meth:`from_snapshot` or
    :meth:`from_observation`. Not thread-safe; :meth:`clone` gives an
    independent copy.
    """

    __slots__ = ("_core", "_deal", "_history")

    def __init__(self, core_position: core.CorePosition, deal: dict[str, Any] | None = None,
                 history: list[Action] | None = None):
        self._core = core_position
        self._deal = deal
        self._history = history if history is not None else []

    # --- construction ---

    @classmethod
    def new(cls, players: int, seed: int) -> Position:
        """A new game dealt from `seed` (the same seed gives the same deal everywhere)."""
        if isinstance(players, bool) or players not in (2, 3, 4):
            raise CacaoError(f"players: must be 2, 3 or 4, got {players!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise CacaoError(f"seed: must be an integer in 0..2**64-1, got {seed!r}")
        position = cls(core.CorePosition.deal(players, seed))
        position._deal = position._deal_from_core()
        return position

    @classmethod
    def from_deal(cls, players: int, first_player: int, worker_piles: list[list[str]],
                  jungle_deck: list[str]) -> Position:
        """A new game from explicit draw orders (a record header)."""
        header = {"players": players, "first_player": first_player,
                  "worker_piles": worker_piles, "jungle_deck": jungle_deck}
        check_deal(header)
        piles = [[WORKER_TILES.index(t) for t in pile] for pile in worker_piles]
        deck = [JUNGLE_TILES.index(t) + 1 for t in jungle_deck]
        deal = {"players": players, "first_player": first_player,
                "worker_piles": [list(p) for p in worker_piles], "jungle_deck": list(jungle_deck)}
        return cls(core.CorePosition.start(players, first_player, piles, deck), deal)

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | str, upto: int | None = None) -> Position:
        """Replay a cacao-record/1 (dict or JSON text), checking every action.

        With `upto`, stop after that many actions. Raises RecordError."""
        return replay(record, upto)

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, Any] | str, reachable: bool = True) -> Position:
        """A complete position from a cacao-position/1 snapshot. Raises SnapshotError.

        reachable=False also accepts hand-made positions no game reaches (for
        rule tests; see snapshot.load_snapshot)."""
        return cls(load_snapshot(snapshot, reachable))

    @classmethod
    def from_observation(cls, observation: Mapping[str, Any] | str, seed: int) -> Position:
        """A complete position consistent with one seat's observation: the
        hidden parts are drawn at random from what that seat knows."""
        return cls(load_observation(observation, seed))

    def _deal_from_core(self) -> dict[str, Any]:
        c = self._core
        piles = [[WORKER_TILES[t] for t in c.full_pile(s)] for s in range(c.players)]
        return {"players": c.players, "first_player": c.first_player,
                "worker_piles": piles, "jungle_deck": [JUNGLE_TILES[k - 1] for k in c.full_deck()]}

    # --- state ---

    @property
    def core(self) -> core.CorePosition:
        """The compiled position, for Cython code (cacaoai.search)."""
        return self._core

    @property
    def players(self) -> int:
        return self._core.players

    @property
    def first_player(self) -> int:
        return self._core.first_player

    @property
    def turn(self) -> int:
        """Number of completed turns."""
        return self._core.turn

    @property
    def mover(self) -> int:
        """The seat whose turn it is."""
        return self._core.mover

    @property
    def to_act(self) -> int | None:
        """The seat that decides now; None once the game is over."""
        seat = self._core.to_act
        return None if seat < 0 else seat

    @property
    def phase(self) -> str:
        return PHASES[self._core.phase]

    @property
    def is_over(self) -> bool:
        return self._core.phase == 2

    @property
    def history(self) -> list[Action]:
        return list(self._history)

    @property
    def progress(self) -> float:
        """How far the game is: the share of all seats' worker tiles that have
        left their hands and piles (placed or discarded), 0 at the deal and 1
        when none is left. Public: every seat can count the others' tiles."""
        left, total = self._core.tiles_left()
        return 1.0 - left / total if total else 1.0

    def result(self) -> Result | None:
        """The final result, or None while the game goes on."""
        if not self.is_over:
            return None
        gold, cacao, winners = self._core.result()
        return Result(gold, cacao, winners)

    def temples(self) -> list[Temple]:
        """Every temple on the board, by cell (x, then y), with the workers each
        seat turns to it (top worker tiles only) and what its majority gives
        each seat now: the core's own count, the one the final scoring uses."""
        return sorted((Temple(x, y, tuple(workers), tuple(awards))
                       for x, y, workers, awards in self._core.temples()),
                      key=lambda t: (t.x, t.y))

    def scores(self) -> list[Score]:
        """Each seat's gold if the game ended now, by part, as the final scoring
        counts it; once the game is over each ``total`` equals ``result().gold``."""
        return [Score(*parts) for parts in self._core.score()]

    def clone(self) -> Position:
        return Position(self._core.clone(), self._deal, list(self._history))

    # --- features of a learned evaluation (docs/engine.md#features) ---

    def features(self, seat: int) -> np.ndarray:
        """The position as `seat` sees it, as N_FEATURES float32 values
        (cacaoai.engine.features names them): public facts and the seat's own
        hand only, seat-relative (the seat's own block first)."""
        import numpy as np

        out = np.zeros(N_FEATURES, dtype=np.float32)
        self._core.features_into(self._seat(seat), out)
        return out

    def action_features(self, seat: int, codes: Sequence[int]) -> np.ndarray:
        """Features of the legal action codes `codes` (of the seat to act), as
        a len(codes) x N_ACTION_FEATURES float32 array, asked by `seat`. An
        action's features read only public facts, so every seat gets the same."""
        import numpy as np

        viewer = self._seat(seat)
        codes = list(codes)
        for i, code in enumerate(codes):
            if isinstance(code, bool) or not isinstance(code, int):
                raise CacaoError(f"codes[{i}]: must be an action code (int), got {code!r}")
        out = np.zeros((len(codes), N_ACTION_FEATURES), dtype=np.float32)
        try:
            self._core.action_features_into(viewer, codes, out)
        except ValueError as exc:
            raise IllegalActionError(str(exc)) from None
        return out

    def _seat(self, seat: int) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise CacaoError(f"seat: must be in 0..{self.players - 1}, got {seat!r}")
        return seat

    # --- actions ---

    def decode(self, code: int) -> Action:
        """The Action of a packed action_t code at this position."""
        return self._decode(code, self._core.to_act, None)

    def _decode(self, code: int, seat: int, display: Sequence[int] | None) -> Action:
        """decode, with the seat to act and the display (None: read when
        needed) given, as legal_actions reads them once for every code."""
        kind = code & 3
        if kind == 3:
            return trusted_action("resolve", seat, gold=(code >> 2) & 0xFF, cacao=(code >> 10) & 7)
        tile = WORKER_TILES[(code >> 2) & 3]
        if kind == 2:
            return trusted_action("discard", seat, tile)
        cell = (code >> 6) & 0xFFF
        x, y = cell % 64 - 32, cell // 64 - 32
        rot = (code >> 4) & 3
        if kind == 1:
            return trusted_action("overbuild", seat, tile, x, y, rot)
        if not code >> 18:
            return trusted_action("place", seat, tile, x, y, rot)
        if display is None:
            display = self._core.display()
        fills = []
        for d, (dx, dy) in enumerate(DIRECTIONS):
            slot = (code >> (18 + 2 * d)) & 3
            if slot:
                fills.append((x + dx, y + dy, JUNGLE_TILES[display[slot - 1] - 1]))
        fills.sort()  # (x, y) differ between fills: Fill's own order
        return trusted_action("place", seat, tile, x, y, rot, tuple(trusted_fill(*f) for f in fills))

    def legal_codes(self) -> list[int]:
        return self._core.legal_codes()

    def legal_actions(self) -> list[Action]:
        """Every legal action, canonical and without duplicates."""
        core = self._core
        seat, display = core.to_act, core.display()
        decoded = _DECODED
        actions = []
        for key, code in self.legal_keys():
            action = decoded.get(key)
            if action is None:
                action = self._decode(code, seat, display)
                if len(decoded) >= _DECODED_MAX:
                    decoded.clear()
                decoded[key] = action
            actions.append(action)
        return actions

    def legal_keys(self) -> list[tuple[int, int]]:
        """(key, code) of every legal action, in :meth:`legal_codes`' order.

        A key stands for the Action its code decodes to here: the code, the
        seat to act and, for a placement that fills cells, the display's
        tiles. Equal keys, from any positions, mean equal actions, so what
        is made of an action may be kept by its key (legal_actions keeps
        the Actions)."""
        core = self._core
        to_act = core.to_act
        if to_act < 0:
            return []
        seat = to_act << 26  # codes have 26 bits (decode)
        display = core.display()
        filled = seat | sum(kind << (28 + 4 * i) for i, kind in enumerate(display))  # kinds 1..10
        return [(code | (filled if code >> 18 else seat), code) for code in core.legal_codes()]

    def encode(self, action: Action | Mapping[str, Any]) -> int:
        """The code of a legal action. Raises IllegalActionError with the reason."""
        if not isinstance(action, Action):
            action = Action.from_json(action)
        bits = _code_bits(action)
        if bits is not None:
            mask, want = bits
            for code in self._core.legal_codes():
                if code & mask == want and self.decode(code) == action:
                    return code
        raise IllegalActionError(self._why_illegal(action))

    def apply(self, action: Action | Mapping[str, Any] | int) -> Report:
        """Apply a legal action (an Action, its JSON form, or a legal code)."""
        if isinstance(action, int) and not isinstance(action, bool):
            if not self._core.is_legal(action):
                raise IllegalActionError(f"code {action} is not a legal action here")
            code = action
            action = self.decode(code)
        else:
            code = self.encode(cast("Action | Mapping[str, Any]", action))
            action = self.decode(code)
        before = [self._core.seat(s) for s in range(self.players)]
        mover, hand_before = self._core.mover, sum(before[self._core.mover]["hand"])
        board_before = set((x, y) for x, y, _ in self._core.tiles())
        deck_before = self._core.deck()
        self._core.apply_code(code)
        self._history.append(action)
        return self._report(action, before, mover, hand_before, board_before, deck_before)

    def _report(self, action: Action, before: list[dict[str, Any]], mover: int,
                hand_before: int, board_before: set[tuple[int, int]], deck_before: list[int]) -> Report:
        report = Report(action)
        blind_drawn = 0
        for s in range(self.players):
            after = self._core.seat(s)
            report.gains.append({k: after[k] - before[s][k] for k in ("gold", "cacao", "sun", "water")})
        if action.type in ("place", "overbuild"):
            blind = self._core.blind_draw()
            covered = self._core.covered()
            for x, y, b in self._core.tiles():
                if (x, y) not in board_before or ((x, y) == (action.x, action.y) and action.type == "overbuild"):
                    tile = tile_json(x, y, b, covered)
                    if blind == (x, y):
                        tile["blind"] = True
                        blind_drawn += 1
                    report.placed.append(tile)
            report.placed.sort(key=lambda t: (t["x"], t["y"]))
            report.activations = [
                {"seat": s, "x": x, "y": y, "side": "NESW"[d], "tile": JUNGLE_TILES[k - 1], "workers": w}
                for s, x, y, d, k, w in self._core.activations()]
        if self._core.phase != 1:  # the turn ended: the mover drew if its pile had a tile
            used = 0 if action.type == "resolve" else 1
            report.drew = sum(self._core.seat(mover)["hand"]) > hand_before - used
            if report.drew:
                report.drawn = WORKER_TILES[before[mover]["pile"][0]]
        # the deck's tiles gone but not laid blind went to the display, in order
        dropped = len(deck_before) - len(self._core.deck())
        report.refill = [JUNGLE_TILES[k - 1] for k in deck_before[blind_drawn:dropped]]
        return report

    def _why_illegal(self, action: Action) -> str:
        """A sentence naming why a well-formed action is not legal here."""
        c = self._core
        if self.is_over:
            return "the game is over"
        if action.seat != c.to_act:
            return f"seat: seat {c.to_act} is to act, not seat {action.seat}"
        if c.phase == 1:
            if action.type != "resolve":
                return f"type: seat {c.to_act} must choose a resolve result, not {action.type}"
            options = ", ".join(f"{g} gold/{k} cacao" for g, k in c.pending()[0][1])
            return (f"gold/cacao: {action.gold} gold with {action.cacao} cacao kept is not a best result; "
                    f"choose one of {options}")
        if action.type == "resolve":
            return f"type: no resolution is pending; seat {c.to_act} must place a worker tile"
        hand = c.seat(c.mover)["hand"]
        if not hand[WORKER_TILES.index(action.tile)]:
            return f"tile: {action.tile} is not in seat {c.mover}'s hand"
        if action.type == "discard":
            return "type: discard is allowed only when no tile can be placed or overbuilt"
        if action.tile == "1111" and action.rot != 0:
            return "rot: a 1111 tile is always written with rot 0"
        if action.type == "overbuild":
            if c.display() or c.deck():
                return "type: overbuilding needs the jungle deck and the display to be empty"
            if c.seat(c.mover)["sun"] < 1:
                return "type: overbuilding costs a sun token and the seat has none"
            b = c.cell(action.x, action.y)
            if b < 0x80 or (b >> 4) & 3 != c.mover:
                return f"x/y: ({action.x},{action.y}) is not a worker tile of seat {c.mover}"
            return f"x/y: the tile at ({action.x},{action.y}) was placed by an overbuild and cannot be covered"
        if c.cell(action.x, action.y) != 11:
            return f"x/y: ({action.x},{action.y}) is not an empty cell next to a jungle tile"
        assert action.x is not None and action.y is not None
        cell = (action.y + 32) * 64 + action.x + 32
        ways = [self.decode(code).fills for code in c.legal_codes() if (code >> 6) & 0xFFF == cell]
        shown = "; ".join("[" + ", ".join(f"{f.tile} to ({f.x},{f.y})" for f in o) + "]"
                          for o in dict.fromkeys(ways))
        return f"fills: not a way to fill the cells this placement closes; possible: {shown}"

    # --- records, snapshots, observations ---

    def record(self) -> dict[str, Any]:
        """The cacao-record/1 of this game so far (with `result` once it is over)."""
        if self._deal is None:
            raise CacaoError("this position has no deal (it was loaded from a snapshot); no record can be written")
        out: dict[str, Any] = {"format": "cacao-record/1", **self._deal,
                               "actions": [a.to_json() for a in self._history]}
        result = self.result()
        if result is not None:
            out["result"] = result.to_json()
        return out

    def snapshot(self) -> dict[str, Any]:
        """The complete position as cacao-position/1 (round-trips exactly)."""
        return dump_snapshot(self._core)

    def observation(self, seat: int) -> dict[str, Any]:
        """What `seat` knows (docs/rules.md#information), as cacao-position/1."""
        return dump_snapshot(self._core, view=self._seat(seat))

    def hash(self, seat: int | None = None) -> str:
        """A short hash of the complete position, or of `seat`'s observation:
        ``position_hash`` of its snapshot (observation), without building it."""
        return _digest(snapshot_text(self._core, None if seat is None else self._seat(seat)))

    def __repr__(self) -> str:
        return f"<Position players={self.players} turn={self.turn} phase={self.phase} to_act={self.to_act}>"


_KIND_BITS = {"place": 0, "overbuild": 1, "discard": 2, "resolve": 3}
#: Actions decoded so far by their key (Position.legal_keys), at most _DECODED_MAX
#: (then forgotten at once): a game's positions share most of their actions.
#: Kept small: each Action is a few objects that Python's garbage collector
#: walks in every full collection, during which no thread runs Python (65,536
#: of them made a collection take 27 ms; 4,096, about a hundred positions'
#: actions, 1.4 ms).
#: Thread-safe: the GIL makes each look-up and store atomic, and Actions are immutable.
_DECODED: dict[int, Action] = {}
_DECODED_MAX = 1 << 12


def _code_bits(action: Action) -> tuple[int, int] | None:
    """(mask, bits) that every code decoding to `action` has (see decode), so
    that encode decodes only the few legal codes that may match; None when
    no code can decode to it."""
    kind = _KIND_BITS.get(action.type)
    if kind is None:
        return None
    if kind == 3:
        gold, cacao = action.gold, action.cacao
        if not (isinstance(gold, int) and isinstance(cacao, int) and 0 <= gold <= 0xFF and 0 <= cacao <= 7):
            return None
        return 0x1FFF, gold << 2 | cacao << 10 | 3
    if action.tile not in WORKER_TILES:
        return None
    tile = WORKER_TILES.index(action.tile) << 2
    if kind == 2:
        return 0xF, tile | 2
    x, y, rot = action.x, action.y, action.rot
    if not (isinstance(x, int) and isinstance(y, int) and isinstance(rot, int)
            and -32 <= x < 32 and -32 <= y < 32 and 0 <= rot <= 3):
        return None
    return 0x3FFFF, ((y + 32) * 64 + x + 32) << 6 | rot << 4 | tile | kind


def position_hash(snapshot: Mapping[str, Any]) -> str:
    """16 hex digits of SHA-256 over the canonical JSON of a snapshot or observation."""
    return _digest(json.dumps(snapshot, sort_keys=True, separators=(",", ":")))


def _digest(text: str) -> str:
    """16 hex digits of SHA-256 over a snapshot's canonical JSON text."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]



def replay(record: Mapping[str, Any] | str, upto: int | None = None) -> Position:
    """Replay a cacao-record/1 (dict or JSON text) to its end, or its first
    `upto` actions, checking every action and, for a full replay, the written
    result. Raises RecordError naming the first bad action."""
    data = parse_record(record)
    actions = data["actions"]
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, int) or not 0 <= upto <= len(actions)):
        raise RecordError(-1, f"at: must be in 0..{len(actions)}, got {upto!r}")
    position = Position.from_deal(data["players"], data["first_player"], data["worker_piles"], data["jungle_deck"])
    for index, raw in enumerate(actions[:upto] if upto is not None else actions):
        try:
            position.apply(Action.from_json(raw))
        except CacaoError as exc:
            raise RecordError(index, str(exc)) from None
    if upto is None and "result" in data:
        check_result(data["result"], position, len(actions))
    return position

"""Explanations as data: what one line of play gives a seat that another does
not, by the score parts the engine counts, and an English sentence built from
them for clients that want one.

:func:`explain` plays two lines (an action and its expected continuation, such
as a candidate's principal variation) from one seat's observation and compares
where they lead, for that seat: the gold it would have if the game ended
there and its parts (gold so far, temple majorities, the water track, sun
tokens), the cacao it holds, the cacao its workers harvested from plantations
and the cacao they could sell at markets along the line, and every temple
whose awards differ. Both lines are played to the same completed turn (at
least the end of the current turn), so that neither is judged before the
other's reply; hidden parts (other hands, draw orders) are drawn from the
seat's observation only, so an explanation never tells what the seat could
not see. :func:`sentence` turns an :class:`Explanation` into one sentence;
the data stays the reply, so a front end may show or translate it.

Thread-safety: pure functions over their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cacaoai.engine import SEAT_COLOURS, Action, CacaoError, Position, derive_seed

from .results import SearchResult

__all__ = ["PARTS", "Explanation", "Part", "TempleChange", "explain", "explain_result", "action_text", "sentence"]

#: The score parts compared, in the order a sentence names them ("total" last).
PARTS = ("temples", "water", "water_space", "sun", "gold", "cacao", "plantations", "markets", "total")
#: Determinizations tried for a line whose later plies are illegal in the first ones.
LINE_TRIES = 16
#: The most gains a sentence names.
MAX_CLAUSES = 3
#: Seat names a sentence uses when the caller gives none: their colours, as
#: the board page and the terminal name them.
DEFAULT_NAMES = SEAT_COLOURS

_PLANTATION_CACAO = {"plantation-1": 1, "plantation-2": 2}
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth"}


@dataclass(frozen=True)
class Part:
    """One score part of the seat at the end of each line: `best` for the
    explained line, `other` for the line it is compared with."""

    name: str
    best: int
    other: int

    @property
    def difference(self) -> int:
        return self.best - self.other

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "best": self.best, "other": self.other}


@dataclass(frozen=True)
class TempleChange:
    """A temple whose awards differ between the two lines' ends: the gold
    its majority gives each seat (`best`, `other`: one value per seat)."""

    x: int
    y: int
    best: tuple[int, ...]
    other: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "best": list(self.best), "other": list(self.other)}


@dataclass(frozen=True)
class Explanation:
    """What `line` gives `seat` that `other_line` does not, at the end of
    both (played `plies` and `other_plies` deep, to completed turn `turn`):
    the parts that differ and the temples whose awards differ."""

    seat: int
    line: tuple[Action, ...]
    other_line: tuple[Action, ...]
    plies: int
    other_plies: int
    turn: int
    parts: tuple[Part, ...] = ()
    temples: tuple[TempleChange, ...] = field(default_factory=tuple)
    #: every seat's score at the end of `line` and of `other_line` (empty: not known)
    totals: tuple[int, ...] = ()
    other_totals: tuple[int, ...] = ()

    def part(self, name: str) -> Part | None:
        """The part called `name`, or None when it does not differ."""
        return next((p for p in self.parts if p.name == name), None)

    def edge(self, totals: Sequence[int]) -> int:
        """What decides the game for the seat, at a line's end: with two
        players its margin over the other seat; with three or four, its gap to
        the best of the others (its lead when it is ahead)."""
        return totals[self.seat] - max(t for s, t in enumerate(totals) if s != self.seat)

    def rank(self, totals: Sequence[int]) -> int:
        """The seat's place at a line's end (1: ahead of or level with every other)."""
        return 1 + sum(t > totals[self.seat] for t in totals)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "line": [a.to_json() for a in self.line],
                "other_line": [a.to_json() for a in self.other_line], "plies": self.plies,
                "other_plies": self.other_plies, "turn": self.turn,
                "parts": [p.to_json() for p in self.parts],
                "temples": [t.to_json() for t in self.temples],
                "totals": list(self.totals), "other_totals": list(self.other_totals)}


@dataclass
class _End:
    """One line's end: turn reached, plies played, the seat's parts, the
    temples' awards and every seat's score."""

    turn: int
    plies: int
    parts: dict[str, int]
    temples: dict[tuple[int, int], tuple[int, ...]]
    totals: tuple[int, ...]


def explain(position: Position, seat: int, line: Sequence[Action], other_line: Sequence[Action], *,
            seed: int) -> Explanation:
    """Compare where `line` and `other_line` (each starting with an action
    of the seat to act in `position`) lead for `seat`, from `seat`'s
    observation of `position` only. Each line is played as far as it is
    legal in a determinization (seeded from `seed`; up to LINE_TRIES are
    tried for its later plies), then both are cut at the same completed turn.

    Raises ValueError: a bad seat, an empty line, or a first action that is
    not legal in `position`."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < position.players:
        raise ValueError(f"seat: must be in 0..{position.players - 1}, got {seat!r}")
    for name, actions in (("line", line), ("other_line", other_line)):
        if not actions:
            raise ValueError(f"{name}: must hold at least one action")
        try:
            position.encode(actions[0])
        except CacaoError as exc:
            raise ValueError(f"{name}[0]: {actions[0]} is not legal here ({exc})") from None
    observation = position.observation(seat)
    ends = [_play(observation, seat, tuple(actions), seed) for actions in (line, other_line)]
    turn = max(position.turn + 1, min(e[-1].turn for e in ends))
    a, b = (next((e for e in steps if e.turn >= turn), steps[-1]) for steps in ends)
    parts = tuple(Part(name, a.parts[name], b.parts[name]) for name in PARTS
                  if a.parts[name] != b.parts[name])
    zeros = (0,) * position.players
    temples = tuple(TempleChange(x, y, a.temples.get((x, y), zeros), b.temples.get((x, y), zeros))
                    for x, y in sorted(set(a.temples) | set(b.temples))
                    if a.temples.get((x, y), zeros) != b.temples.get((x, y), zeros))
    return Explanation(seat, tuple(line[:a.plies]), tuple(other_line[:b.plies]), a.plies, b.plies,
                       min(a.turn, b.turn), parts, temples, a.totals, b.totals)


def explain_result(position: Position, result: SearchResult, *, seed: int) -> Explanation | None:
    """What a search's best action does that its runner-up does not, along
    their principal variations, for the searching seat (a suggestion's
    explanation). None when the result has no two candidates with lines
    (search with multipv >= 2)."""
    lines = [c.principal_variation for c in result.candidates[:2]]
    if len(lines) < 2 or not all(lines):
        return None
    return explain(position, result.seat, lines[0], lines[1], seed=seed)


def _play(observation: dict[str, Any], seat: int, line: tuple[Action, ...], seed: int) -> list[_End]:
    """The ends after each ply of the longest legal prefix of `line` over up
    to LINE_TRIES determinizations of `observation` (the first action is
    always legal: the observation is of the seat to act or shows its move)."""
    best: list[_End] = []
    for k in range(LINE_TRIES):
        game = Position.from_observation(observation, derive_seed(seed, k))
        steps = [_end(game, seat, 0, {"plantations": 0, "markets": 0})]
        harvest = {"plantations": 0, "markets": 0}
        for ply, action in enumerate(line, 1):
            try:
                report = game.apply(action)
            except CacaoError:
                break
            for act in report.activations:
                if act["seat"] == seat:
                    if act["tile"] in _PLANTATION_CACAO:
                        harvest["plantations"] += act["workers"] * _PLANTATION_CACAO[act["tile"]]
                    elif act["tile"].startswith("market-"):
                        harvest["markets"] += act["workers"]
            steps.append(_end(game, seat, ply, harvest))
            if game.is_over:
                break
        if len(steps) > len(best):
            best = steps
        if len(best) == len(line) + 1 or game.is_over:
            break
    return best[1:] or best


def _end(game: Position, seat: int, plies: int, harvest: dict[str, int]) -> _End:
    scores = game.scores()
    score = scores[seat]
    facts = game.core.seat(seat)
    parts = {"total": score.total, "gold": score.gold, "temples": score.temples, "water": score.water,
             "water_space": facts["water"], "sun": facts["sun"], "cacao": facts["cacao"], **harvest}
    temples = {(t.x, t.y): t.awards for t in game.temples()}
    return _End(game.turn, plies, parts, temples, tuple(s.total for s in scores))


# --- the sentence ---

def sentence(explanation: Explanation, names: Sequence[str] = DEFAULT_NAMES) -> str:
    """One English sentence from an explanation: what its line gains for its
    seat ("your") over the other line, at most MAX_CLAUSES gains in PARTS
    order (temples first), then what decides the game: with two players the
    margin over the other seat, with three or four the gap to the leader
    (and the place, when it changes). For example "2101 at (1,-2) takes the
    majority of the temple at (1,-1) from yellow (+3 gold at the end) and
    moves your water carrier to 4 instead of 2 (+3), +6 in the margin over
    yellow at the end". A line that does not gain on what decides says that
    its gain is in the chances after the lines; one that scores less for its
    seat but gains on the others says both. Other seats are named by `names`
    (one a seat). The trade-offs (parts where the line does worse) stay in
    the data only. An explanation without the seats' totals (an older
    server's) ends with the seat's own gold, as it did."""
    head = action_text(explanation.line[0], short=True)
    other = action_text(explanation.other_line[0], short=True)
    clauses = [*_temple_clauses(explanation, names), *_part_clauses(explanation)][:MAX_CLAUSES]
    if (len(explanation.totals) != len(explanation.other_totals) or len(explanation.totals) < 2
            or (not clauses and explanation.totals == explanation.other_totals)):
        return _own_gold_sentence(explanation, head, other, clauses)
    gained, decisive = _decisive(explanation, names)
    if clauses:
        text = f"{head} {_listed(clauses)}, {decisive}"
    else:
        text = f"{head} instead of {other}: {decisive}"
    return text if gained else text + "; its gain is in the chances after these lines"


def _decisive(explanation: Explanation, names: Sequence[str]) -> tuple[bool, str]:
    """Whether the line gains on what decides the game, and the words for it."""
    mine = explanation.totals[explanation.seat] - explanation.other_totals[explanation.seat]
    edge = explanation.edge(explanation.totals) - explanation.edge(explanation.other_totals)
    own = f"{_signed(mine)} gold for you but " if mine < 0 < edge else ""
    if len(explanation.totals) == 2:
        rival = _name(names, 1 - explanation.seat)
        return edge > 0, f"{own}{_signed(edge)} in the margin over {rival} at the end"
    text = f"{own}{_signed(edge)} against the leader at the end"
    rank, other_rank = explanation.rank(explanation.totals), explanation.rank(explanation.other_totals)
    if rank != other_rank:
        text += f" ({_ORDINALS[rank]} instead of {_ORDINALS[other_rank]})"
    return edge > 0 or rank < other_rank, text


def _own_gold_sentence(explanation: Explanation, head: str, other: str, clauses: list[str]) -> str:
    total = explanation.part("total")
    if clauses:
        text = f"{head} {_listed(clauses)}"
    elif total is not None and total.difference > 0:
        text = f"{head} scores more than {other}"
    elif total is not None:
        return (f"{head} scores {-total.difference} gold less than {other} "
                "along the expected lines; its gain is in the chances after them")
    else:
        return f"{head} scores as much as {other} along the expected lines; its gain is in the chances after them"
    if total is not None:
        text += f", {_signed(total.difference)} gold in all at the end"
    return text


def _listed(clauses: list[str]) -> str:
    return clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]


def action_text(action: Action, *, short: bool = False) -> str:
    """An action in words that tell it from every other action of its position:
    "2101 at (1,-2), rotation 1", "3001 at (0,-1), rotation 2, filling (1,-1)
    with market-3 from the display", "overbuilding with 3100 at (2,1), rotation
    3", "discarding 2101", "taking 4 gold and keeping 1 cacao".

    A worker tile's rotation (0-3 quarter turns clockwise, docs/rules.md) is
    named except for a 1111 at rotation 0 (the only way a 1111 is written), and
    each cell its placement fills with a display tile, with that jungle tile:
    two different actions never read alike. With `short`, the tile and its cell
    only ("2101 at (1,-2)"), as :func:`sentence` and the TypeScript client's
    ``actionText`` name an action.
    """
    if action.type == "discard":
        return f"discarding {action.tile}"
    if action.type == "resolve":
        return f"taking {action.gold} gold and keeping {action.cacao} cacao"
    text = f"{action.tile} at ({action.x},{action.y})"
    if action.type == "overbuild":
        text = "overbuilding with " + text
    if short:
        return text
    if action.tile != "1111" or action.rot:
        text += f", rotation {action.rot}"
    if action.fills:
        filled = _listed([f"({f.x},{f.y}) with {f.tile}" for f in action.fills])
        text += f", filling {filled} from the display"
    return text


def _temple_clauses(explanation: Explanation, names: Sequence[str]) -> list[str]:
    """The temples where the line gains for its seat, or keeps another seat from gold."""
    seat = explanation.seat
    out = []
    for t in explanation.temples:
        mine = t.best[seat] - t.other[seat]
        where = f"the temple at ({t.x},{t.y})"
        leader = max((s for s in range(len(t.other)) if s != seat), key=lambda s: (t.other[s], -s))
        if mine > 0:
            if t.best[seat] == max(t.best) and t.other[leader] > t.other[seat]:
                out.append(f"takes the majority of {where} from {_name(names, leader)} "
                           f"({_signed(mine)} gold at the end)")
            else:
                out.append(f"gains at {where} ({_signed(mine)} gold at the end)")
        elif mine == 0:
            out.extend(f"keeps {_name(names, s)} from gold at {where} "
                       f"({_signed(t.best[s] - t.other[s])} for {_name(names, s)})"
                       for s in range(len(t.best)) if s != seat and t.best[s] < t.other[s])
    return out


def _part_clauses(explanation: Explanation) -> list[str]:
    """The parts where the line does better for its seat."""
    out = []
    space = explanation.part("water_space")
    water = explanation.part("water")
    if space is not None and space.difference > 0:
        gold = f" ({_signed(water.difference)})" if water is not None else ""
        out.append(f"moves your water carrier to {space.best} instead of {space.other}{gold}")
    texts = {
        "sun": "leaves you {best} sun tokens instead of {other}",
        "gold": "leaves you {best} gold instead of {other}",
        "cacao": "leaves you {best} cacao instead of {other}",
        "plantations": "harvests {best} cacao from plantations instead of {other}",
        "markets": "sells {best} cacao at markets instead of {other}",
    }
    for name, text in texts.items():
        part = explanation.part(name)
        if part is not None and part.difference > 0:
            out.append(text.format(best=part.best, other=part.other))
    return out


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) else f"seat {seat}"


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else f"\N{MINUS SIGN}{-value}" if value < 0 else "0"

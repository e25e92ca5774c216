"""A plain-Python reference implementation of Cacao, written from
docs/rules.md and docs/record-format.md.

It exists to be a test oracle for the Cython engine: every rule is spelled out
as directly as possible, and nothing is optimised. Actions are the record
format's dicts; ``canonical(action)`` is the conformance-data serialisation.

Usage::

    game = RefGame.from_record_header(record)
    while not game.is_over():
        game.apply(random.choice(game.legal_actions()))
    game.result()  # {"gold": [...], "cacao": [...], "winners": [...]}
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field

# --- constants (docs/rules.md) ----------------------------------------------------

#: Workers on the sides N, E, S, W at rotation 0.
WORKER_SIDES = {
    "1111": (1, 1, 1, 1),
    "2101": (2, 1, 0, 1),
    "3001": (3, 0, 0, 1),
    "3100": (3, 1, 0, 0),
}
WORKER_ORDER = ["1111", "2101", "3001", "3100"]

#: Direction d = 0..3 is N, E, S, W; y grows downwards.
DIRECTIONS = [(0, -1), (1, 0), (0, 1), (-1, 0)]

JUNGLE_KINDS = [
    "plantation-1", "plantation-2", "market-2", "market-3", "market-4",
    "gold-1", "gold-2", "water", "sun", "temple",
]
#: The 28 jungle tiles.
JUNGLE_COUNTS = {
    "plantation-1": 6, "plantation-2": 2, "market-2": 2, "market-3": 4, "market-4": 1,
    "gold-1": 2, "gold-2": 1, "water": 3, "sun": 2, "temple": 5,
}
#: Taken out of the deck with 2 players.
TWO_PLAYER_REMOVED = {
    "plantation-1": 2, "market-3": 1, "gold-1": 1, "water": 1, "sun": 1, "temple": 1,
}
#: Worker tiles per player, by player count.
WORKER_COUNTS = {
    2: {"1111": 4, "2101": 5, "3001": 1, "3100": 1},
    3: {"1111": 3, "2101": 5, "3001": 1, "3100": 1},
    4: {"1111": 3, "2101": 4, "3001": 1, "3100": 1},
}
WATER_VALUES = [-10, -4, -1, 0, 2, 4, 7, 11, 16]
MAX_CACAO = 5
MAX_SUN = 3
MAX_WATER = len(WATER_VALUES) - 1
PLANTATION_YIELD = {"plantation-1": 1, "plantation-2": 2}
MARKET_PRICE = {"market-2": 2, "market-3": 3, "market-4": 4}
MINE_GOLD = {"gold-1": 1, "gold-2": 2}
HAND_SIZE = 3


def canonical(action: dict) -> str:
    """The conformance serialisation of an action: fills sorted by x then y, sorted keys."""
    action = dict(action)
    if "fills" in action:
        action["fills"] = sorted(action["fills"], key=lambda f: (f["x"], f["y"]))
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def expand(counts: dict) -> list:
    """A multiset given as {item: count} as a flat list."""
    return [item for item, n in counts.items() for _ in range(n)]


def deck_contents(players: int) -> list:
    """The jungle deck's multiset: all 28 tiles minus the two start tiles (and 7 with 2 players)."""
    counts = dict(JUNGLE_COUNTS)
    counts["plantation-1"] -= 1
    counts["market-2"] -= 1
    if players == 2:
        for kind, n in TWO_PLAYER_REMOVED.items():
            counts[kind] -= n
    return expand(counts)


def random_header(players: int, rng: random.Random) -> dict:
    """A random record header (deal) for ``players`` players, drawn with ``rng``."""
    piles = []
    for _ in range(players):
        pile = expand(WORKER_COUNTS[players])
        rng.shuffle(pile)
        piles.append(pile)
    deck = deck_contents(players)
    rng.shuffle(deck)
    return {
        "format": "cacao-record/1",
        "players": players,
        "first_player": rng.randrange(players),
        "worker_piles": piles,
        "jungle_deck": deck,
        "actions": [],
    }


# --- board pieces ---------------------------------------------------------------


@dataclass
class Worker:
    """A worker tile on the board; ``covering`` marks a tile placed by an overbuild."""

    seat: int
    tile: str
    rot: int
    covering: bool = False
    covers: Worker | None = None  # the tile underneath an overbuild

    def workers_facing(self, direction: int) -> int:
        """Workers on the side that faces ``direction`` (side k faces (k + rot) % 4)."""
        return WORKER_SIDES[self.tile][(direction - self.rot) % 4]


@dataclass
class Seat:
    """One player's supplies, hand and draw pile (next draw first)."""

    gold: int = 0
    cacao: int = 0
    sun: int = 0
    water: int = 0
    hand: list = field(default_factory=list)
    pile: list = field(default_factory=list)
    discarded: list = field(default_factory=list)


@dataclass
class Activation:
    """One worker side activated for ``seat``: ``workers`` workers facing a ``kind`` tile."""

    seat: int
    kind: str
    workers: int


def neighbours(x: int, y: int):
    """(direction, (nx, ny)) for the 4 orthogonal neighbours of (x, y)."""
    for d, (dx, dy) in enumerate(DIRECTIONS):
        yield d, (x + dx, y + dy)


def pareto(results) -> list:
    """The (gold, cacao) results that no other result matches or beats in both."""
    results = set(results)
    return sorted(
        r for r in results
        if not any(o != r and o[0] >= r[0] and o[1] >= r[1] for o in results)
    )


def resolution_results(cacao: int, sides: list) -> list:
    """Pareto set of (gold gained, cacao kept) over all orders of the activated sides.

    ``sides`` holds (kind, workers) pairs. Plantations are taken in full, capped
    at MAX_CACAO at each step; a market side sells 0..workers cacao. Mines add a
    fixed amount; other kinds give no gold or cacao.
    """
    fixed_gold = sum(MINE_GOLD.get(kind, 0) * k for kind, k in sides)
    choices = [(kind, k) for kind, k in sides if kind in PLANTATION_YIELD or kind in MARKET_PRICE]
    outcomes = set()

    def explore(remaining: tuple, cacao_now: int, gold_now: int) -> None:
        if not remaining:
            outcomes.add((gold_now + fixed_gold, cacao_now))
            return
        for i, (kind, k) in enumerate(remaining):
            rest = remaining[:i] + remaining[i + 1:]
            if kind in PLANTATION_YIELD:
                explore(rest, min(MAX_CACAO, cacao_now + PLANTATION_YIELD[kind] * k), gold_now)
            else:
                for sold in range(min(k, cacao_now) + 1):
                    explore(rest, cacao_now - sold, gold_now + sold * MARKET_PRICE[kind])

    explore(tuple(sorted(choices)), cacao, 0)
    return pareto(outcomes)


def temple_awards(counts: dict) -> dict:
    """Gold per seat for one temple, given {seat: workers facing it} (zeros ignored)."""
    counts = {s: n for s, n in counts.items() if n > 0}
    if not counts:
        return {}
    best = max(counts.values())
    first = [s for s, n in counts.items() if n == best]
    if len(first) > 1:
        return {s: 6 // len(first) for s in first}
    awards = {first[0]: 6}
    others = {s: n for s, n in counts.items() if s != first[0]}
    if others:
        runner_up = max(others.values())
        second = [s for s, n in others.items() if n == runner_up]
        for s in second:
            awards[s] = 3 // len(second)
    return awards


# --- the game -------------------------------------------------------------------


class RefGame:
    """A Cacao position with its full hidden state (pile and deck orders)."""

    def __init__(self, players: int, first_player: int, worker_piles: list, jungle_deck: list):
        if players not in WORKER_COUNTS:
            raise ValueError(f"players must be 2, 3 or 4, not {players}")
        self.players = players
        self.first_player = first_player
        self.mover = first_player
        self.turn = 0
        self.board: dict = {(0, 0): "plantation-1", (1, 1): "market-2"}
        self.deck = list(jungle_deck)
        self.display = [self.deck.pop(0) for _ in range(min(2, len(self.deck)))]
        self.seats = []
        for pile in worker_piles:
            pile = list(pile)
            self.seats.append(Seat(hand=pile[:HAND_SIZE], pile=pile[HAND_SIZE:]))
        self.pending: list = []  # [(seat, [(gold, cacao), ...])], first one decides now
        self.over = False

    @classmethod
    def from_record_header(cls, record: dict) -> RefGame:
        """A new game from a cacao-record/1 header (actions are not applied)."""
        return cls(record["players"], record["first_player"],
                   record["worker_piles"], record["jungle_deck"])

    @classmethod
    def replay(cls, record: dict, upto: int | None = None) -> RefGame:
        """The game after the first ``upto`` (default: all) actions of a record."""
        game = cls.from_record_header(record)
        for action in record["actions"][:upto]:
            game.apply(action)
        return game

    @classmethod
    def from_snapshot(cls, snap: dict) -> RefGame:
        """A game from a full cacao-position/1 snapshot (the engine's format)."""
        game = cls.__new__(cls)
        game.players, game.first_player = snap["players"], snap["first_player"]
        game.mover, game.turn = snap["mover"], snap["turn"]
        game.board = {}
        for t in snap["board"]:
            if t["tile"] in WORKER_SIDES:
                under = t.get("covers")
                covers = Worker(t["seat"], under["tile"], under["rot"]) if under else None
                game.board[(t["x"], t["y"])] = Worker(t["seat"], t["tile"], t["rot"],
                                                      covering=bool(under), covers=covers)
            else:
                game.board[(t["x"], t["y"])] = t["tile"]
        game.display = list(snap["display"])
        game.deck = list(snap["jungle_deck"])
        game.seats = [Seat(st["gold"], st["cacao"], st["sun"], st["water"],
                           list(st["hand"]), list(st["pile"]), list(st.get("discarded", [])))
                      for st in snap["seats"]]
        game.pending = [(p["seat"], sorted((r["gold"], r["cacao"]) for r in p["results"]))
                        for p in snap["pending"]]
        game.over = snap["phase"] == "over"
        return game

    # --- queries ---------------------------------------------------------------

    def is_over(self) -> bool:
        return self.over

    def to_act(self) -> int | None:
        """The seat that decides now, None when the game is over."""
        if self.over:
            return None
        return self.pending[0][0] if self.pending else self.mover

    def worker_at(self, cell) -> Worker | None:
        """The top worker tile on ``cell``, if any."""
        tile = self.board.get(cell)
        return tile if isinstance(tile, Worker) else None

    def jungle_at(self, cell) -> str | None:
        """The jungle kind on ``cell``, if any."""
        tile = self.board.get(cell)
        return tile if isinstance(tile, str) else None

    def placement_cells(self) -> list:
        """Empty cells orthogonally next to a jungle tile, sorted."""
        cells = set()
        for cell, tile in self.board.items():
            if isinstance(tile, str):
                for _, n in neighbours(*cell):
                    if n not in self.board:
                        cells.add(n)
        # The checkerboard makes worker-adjacency impossible; check it anyway.
        return sorted(c for c in cells
                      if not any(self.worker_at(n) for _, n in neighbours(*c)))

    def cells_to_fill(self, cell) -> list:
        """Empty cells next to ``cell`` with at least 2 worker neighbours once ``cell`` holds one."""
        result = []
        for _, n in neighbours(*cell):
            if n in self.board:
                continue
            workers = sum(1 for _, m in neighbours(*n) if m == cell or self.worker_at(m))
            if workers >= 2:
                result.append(n)
        return sorted(result)

    def fill_options(self, cell) -> list:
        """Every distinct choice of display tiles for the cells a placement on ``cell`` fills.

        Each option is a list of {"x", "y", "tile"} sorted by x, y. When more cells
        must be filled than the display holds, the whole display is used and the
        player picks which cells get it; the others get blind draws (or stay empty).
        """
        cells = self.cells_to_fill(cell)
        used = min(len(cells), len(self.display))
        options = {}
        for chosen in itertools.combinations(cells, used):
            for kinds in itertools.permutations(self.display, used):
                fills = [{"x": c[0], "y": c[1], "tile": k} for c, k in zip(chosen, kinds)]
                fills.sort(key=lambda f: (f["x"], f["y"]))
                options[canonical({"fills": fills})] = fills
        return list(options.values())

    def legal_actions(self) -> list:
        """Every legal action of the seat to act, in the record format, without duplicates."""
        if self.over:
            return []
        if self.pending:
            seat, results = self.pending[0]
            return [{"type": "resolve", "seat": seat, "gold": g, "cacao": c} for g, c in results]
        return self._turn_actions()

    def _turn_actions(self) -> list:
        s = self.mover
        seat = self.seats[s]
        tiles = sorted(set(seat.hand), key=WORKER_ORDER.index)
        actions = []
        for cell in self.placement_cells():
            for fills in self.fill_options(cell):
                for tile in tiles:
                    for rot in rotations(tile):
                        actions.append({"type": "place", "seat": s, "tile": tile, "x": cell[0],
                                        "y": cell[1], "rot": rot, "fills": fills})
        if self.can_overbuild():
            for cell in self.overbuild_cells():
                for tile in tiles:
                    for rot in rotations(tile):
                        actions.append({"type": "overbuild", "seat": s, "tile": tile,
                                        "x": cell[0], "y": cell[1], "rot": rot})
        if not actions:
            actions = [{"type": "discard", "seat": s, "tile": t} for t in tiles]
        return actions

    def can_overbuild(self) -> bool:
        """Overbuilding needs an empty deck and display and a sun token."""
        return not self.deck and not self.display and self.seats[self.mover].sun >= 1

    def overbuild_cells(self) -> list:
        """The mover's own tiles that are not themselves overbuilds, sorted."""
        return sorted(cell for cell, tile in self.board.items()
                      if isinstance(tile, Worker) and tile.seat == self.mover and not tile.covering)

    # --- moves -----------------------------------------------------------------

    def apply(self, action: dict) -> None:
        """Play ``action`` (in the record format). Raises ValueError if it is not legal now."""
        legal = {canonical(a) for a in self.legal_actions()}
        if canonical(action) not in legal:
            raise ValueError(f"illegal action {canonical(action)}")
        kind = action["type"]
        if kind == "resolve":
            self._resolve(action["seat"], action["gold"], action["cacao"])
        elif kind == "discard":
            self.seats[self.mover].hand.remove(action["tile"])
            self.seats[self.mover].discarded.append(action["tile"])
            self._end_turn()
        elif kind == "place":
            self._place(action)
        else:
            self._overbuild(action)

    def _place(self, action: dict) -> None:
        s, cell = self.mover, (action["x"], action["y"])
        self.seats[s].hand.remove(action["tile"])
        self.board[cell] = Worker(s, action["tile"], action["rot"])
        # B. fill the jungle: chosen display tiles first, blind deck draws for the rest.
        new_jungle = []
        listed = {(f["x"], f["y"]): f["tile"] for f in action["fills"]}
        for target, kind in listed.items():
            self.display.remove(kind)
            self.board[target] = kind
            new_jungle.append(target)
        for target in self.cells_to_fill(cell):
            if target not in self.board and self.deck:
                self.board[target] = self.deck.pop(0)
                new_jungle.append(target)
        # C. the new tile's sides facing jungle, then other tiles facing new jungle.
        activations = self._sides_facing_jungle(cell)
        for jungle_cell in new_jungle:
            for d, n in neighbours(*jungle_cell):
                worker = self.worker_at(n)
                if worker is not None and n != cell:
                    toward = (d + 2) % 4  # the side of the worker tile facing back
                    k = worker.workers_facing(toward)
                    if k:
                        activations.append(Activation(worker.seat, self.board[jungle_cell], k))
        self._activate(activations)

    def _overbuild(self, action: dict) -> None:
        s, cell = self.mover, (action["x"], action["y"])
        seat = self.seats[s]
        seat.sun -= 1  # paid before the new tile activates
        seat.hand.remove(action["tile"])
        self.board[cell] = Worker(s, action["tile"], action["rot"], covering=True,
                                  covers=self.board[cell])
        self._activate(self._sides_facing_jungle(cell))

    def _sides_facing_jungle(self, cell) -> list:
        """Activations of the worker tile on ``cell`` for every side that faces jungle."""
        worker = self.worker_at(cell)
        activations = []
        for d, n in neighbours(*cell):
            kind = self.jungle_at(n)
            k = worker.workers_facing(d)
            if kind is not None and k:
                activations.append(Activation(worker.seat, kind, k))
        return activations

    def _activate(self, activations: list) -> None:
        """Apply the fixed gains; queue a resolve for each seat with 2+ results."""
        order = [(self.mover + i) % self.players for i in range(self.players)]
        for s in order:
            sides = [(a.kind, a.workers) for a in activations if a.seat == s]
            if not sides:
                continue
            seat = self.seats[s]
            for kind, k in sides:
                if kind == "sun":
                    seat.sun = min(MAX_SUN, seat.sun + k)
                elif kind == "water":
                    seat.water = min(MAX_WATER, seat.water + k)
            results = resolution_results(seat.cacao, sides)
            if len(results) == 1:
                self._gain(s, *results[0])
            else:
                self.pending.append((s, results))
        if not self.pending:
            self._end_turn()

    def _gain(self, s: int, gold: int, cacao: int) -> None:
        self.seats[s].gold += gold
        self.seats[s].cacao = cacao

    def _resolve(self, s: int, gold: int, cacao: int) -> None:
        self.pending.pop(0)
        self._gain(s, gold, cacao)
        if not self.pending:
            self._end_turn()

    def _end_turn(self) -> None:
        """Draw for the mover, refill the display, pass the turn or end the game."""
        seat = self.seats[self.mover]
        if seat.pile:
            seat.hand.append(seat.pile.pop(0))
        while len(self.display) < 2 and self.deck:
            self.display.append(self.deck.pop(0))
        self.turn += 1
        if all(not st.hand and not st.pile for st in self.seats):
            self.over = True
            return
        self.mover = (self.mover + 1) % self.players
        while not self.seats[self.mover].hand:  # cannot happen in a dealt game
            self.mover = (self.mover + 1) % self.players

    # --- scoring ---------------------------------------------------------------

    def final_gold(self) -> list:
        """Gold after temples, sun tokens and water (docs/rules.md, scoring)."""
        gold = [seat.gold for seat in self.seats]
        for cell, tile in sorted(self.board.items()):
            if tile != "temple":
                continue
            counts: dict = {}
            for d, n in neighbours(*cell):
                worker = self.worker_at(n)
                if worker is not None:
                    toward = (d + 2) % 4
                    counts[worker.seat] = counts.get(worker.seat, 0) + worker.workers_facing(toward)
            for s, award in temple_awards(counts).items():
                gold[s] += award
        for s, seat in enumerate(self.seats):
            gold[s] += seat.sun + WATER_VALUES[seat.water]
        return gold

    def result(self) -> dict | None:
        """{"gold", "cacao", "winners"} once the game is over, else None."""
        if not self.over:
            return None
        gold = self.final_gold()
        cacao = [seat.cacao for seat in self.seats]
        best = max(zip(gold, cacao))
        winners = [s for s in range(self.players) if (gold[s], cacao[s]) == best]
        return {"gold": gold, "cacao": cacao, "winners": winners}


def rotations(tile: str) -> list:
    """Distinct rotations of a worker tile: 1111 is written with rot 0 only."""
    return [0] if tile == "1111" else [0, 1, 2, 3]

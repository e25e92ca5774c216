// The one naming of the seats, as docs/rules.md names them: seat 0 red, 1 yellow,
// 2 purple, 3 blue, numbered from 0 as records and the API number them. The board page
// and the terminal (cacaoai.client.board) use the same names; the repository's
// tests/test_names.py checks that they agree. The tiles' names ("2101", "plantation-2")
// come from the service (GetServerInfo's rules facts).

export const SEAT_NAMES = ["red", "yellow", "purple", "blue"];

/** "red": a seat's name (its colour), or "seat 5" past the four colours. */
export const seatName = (seat: number): string => SEAT_NAMES[seat] ?? `seat ${seat}`;

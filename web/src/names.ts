// The one naming of the seats, as docs/rules.md names them: seat 0 red, 1 yellow,
// 2 purple, 3 blue, numbered from 0 as records and the API number them; the names are the
// client's (@cacaoai/client), as the terminal's (clients/board.py): tests/test_names.py
// checks that they agree. The tiles' names ("2101", "plantation-2") come from the service
// (GetServerInfo).
export { SEAT_NAMES, seatName } from "@cacaoai/client";

export const SEAT_SYMBOLS = ["●", "■", "▲", "◆"];

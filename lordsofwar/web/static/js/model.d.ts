/**
 * The game's documents as the browser client reads them: the card catalogue (GET /api/cards), a
 * position or a player's view of it (rules/notation.py view_json), the game's state and updates
 * (GET /api/games/{id}, the live channel: games/service.py state_doc), its log, the replay
 * (GET /api/games/{id}/replay) and its analysis. Hand-written where the API's generated types
 * (api-types.d.ts) do not declare these documents yet; field names as the server sends them.
 */

/** A player's number: 1 or 2 (a number, as `3 - p` gives the other). */
export type Seat = number;
/** Names by player number: {1: "alice", 2: "bob"}. */
export type Names = Record<number, string>;
/** "me" (you, or player 1 for a spectator: blue) | "opp" (red): a card's colour follows its owner. */
export type Colour = 'me' | 'opp';

export interface Ranged {
  damage: number;
  /** [right, forward] offsets of the squares it hits */
  targets: [number, number][];
}

export interface Card {
  id: string;
  name: string;
  army: string;
  class: string;
  rank: string;
  defence: number;
  attacks?: Record<string, number>;
  moves?: string[];
  ranged?: Ranged | null;
}

export interface Unit {
  square: string;
  card: string;
  owner: Seat;
}

export interface Variant {
  mat?: string;
  hands?: string;
  commands_to_win?: number;
  units_to_win?: number;
}

export interface TurnState {
  decider?: Seat | null;
  phase?: string;
  forced?: boolean;
  /** declared shots: shooter's square → target's square */
  shots?: Record<string, string>;
  /** shot damage this turn by square */
  shot_damage?: Record<string, number>;
}

export interface PlayerView {
  /** card ids; null for a card the viewer may not see */
  hand?: (string | null)[];
  /** the cards left (a replay: their ids) or only their number */
  deck?: number | string[] | null;
  /** the player's eliminated cards */
  lost?: string[];
  army?: string | null;
}

export interface Result {
  winner: Seat | null;
  reason: string;
}

/** A position, or what one player (or a spectator) may see of it. */
export interface View {
  turn: number;
  to_move: Seat;
  board?: Unit[];
  players?: Record<string, PlayerView>;
  variant?: Variant;
  turn_state?: TurnState | null;
  result?: Result | null;
}

export interface LogEvent {
  type: string;
  player?: Seat | null;
  owner?: Seat | null;
  card?: string;
  square?: string;
  from?: string;
  to?: string;
  target?: string;
  target_card?: string;
  damage?: number;
  declared?: boolean;
  forced?: boolean;
  hand?: string[];
  winner?: Seat | null;
  reason?: string;
  [k: string]: unknown;
}

export interface LogEntry {
  n?: number | null;
  turn?: number | null;
  player?: Seat | null;
  action?: string | null;
  events?: LogEvent[];
}

export interface GamePlayer {
  name?: string;
  bot?: string | null;
}

export interface RatingChange {
  before: number;
  after: number;
  provisional?: boolean;
}

/** The game's meta data (games/service.py game_meta). */
export interface Game {
  id: number;
  version: number;
  status: string;
  you: Seat | null;
  players?: Record<string, GamePlayer>;
  time_control?: { mode?: string; [k: string]: unknown };
  clocks?: Record<string, number> | null;
  clock_running?: Seat | null;
  deadline?: string | null;
  draw_offer?: Seat | null;
  result?: Result | null;
  rated?: boolean;
  hints?: boolean;
  ratings?: Record<string, RatingChange> | null;
  [k: string]: unknown;
}

/** What the viewer may know of a deck's cards (games/service.py deck_cards). */
export interface DeckInfo {
  cards: string[];
  includes_hand: boolean;
}

/** GET /api/games/{id}, a "state" or "update" message of the live channel. */
export interface GameState {
  game: Game;
  view: View;
  legal?: string[];
  log?: LogEntry[];
  deck_cards?: Record<string, DeckInfo | null> | null;
}

/** POST /api/games/{id}/hint */
export interface Hint {
  version: number;
  action: string;
  squares: string[];
  win?: number | null;
}

export interface RecordPlayer {
  name?: string;
}

/** A game record (notation.md section 5), as far as the replay reads it. */
export interface GameRecord {
  players?: Record<string, RecordPlayer>;
  actions?: string[];
  result?: Result | null;
}

/** GET /api/games/{id}/replay */
export interface ReplayDoc {
  record?: GameRecord;
  positions?: View[];
  log?: LogEntry[];
}

/** One decision of an analysis (docs/bots.md). */
export interface Decision {
  n: number;
  player: Seat;
  played: string;
  best: string;
  forced?: boolean;
  verdict?: string | null;
  drop: number;
  squares?: string[] | null;
  win_best?: number | null;
  win_played?: number | null;
}

export interface Analysis {
  level: string;
  graph: number[];
  decisions: Decision[];
}

/** GET/POST /api/games/{id}/analysis */
export interface AnalysisDoc {
  status?: string;
  done?: number;
  total?: number;
  error?: string | null;
  result?: Analysis | null;
}

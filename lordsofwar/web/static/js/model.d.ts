/**
 * The game's documents as the browser client reads them, from the API's generated types
 * (api-types.d.ts, openapi-typescript over the server's OpenAPI schema): the card facts
 * (GET /api/cards), a position or a player's view of it, the game's state and the live channel's
 * messages, its log, the replay and its analysis. Two adaptations for the client: a player's
 * number is a `number` (the client computes `3 - p`), so the documents keyed by player ("1", "2")
 * are read as records by number; and the log's events are written out, one interface per kind
 * (each the API's component of that kind, which the compiler checks).
 */
import type { components } from './api-types';

type Schemas = components['schemas'];

/** A player's number: 1 or 2 (a number, as `3 - p` gives the other). */
export type Seat = number;
/** Names by player number: {1: "alice", 2: "bob"}. */
export type Names = Record<number, string>;
/** "me" (you, or player 1 for a spectator: blue) | "opp" (red): a card's colour follows its owner. */
export type Colour = 'me' | 'opp';

export type Ranged = Schemas['Ranged'];
export type Card = Schemas['CardFacts'];
export type Unit = Schemas['BoardUnit'];
export type Variant = Schemas['Variant'];
export type TurnState = Schemas['TurnState'];
export type PlayerView = Schemas['Side'];
export type Result = Schemas['GameResult'];

/** A position, or what one player (or a spectator) may see of it. */
export type View = Omit<Schemas['Position'], 'players'> & { players: Record<number, PlayerView> };

/*
 * The log's events, one interface per kind, discriminated by `type`: the same kinds and fields as
 * the rules' TypedDicts (lordsofwar/rules/events.py; tests/test_events.py compares them). Squares
 * are in notation ("d4"), cards are card ids.
 */

/** A ranged unit shoots: `declared` when the shot waits for the turn's deployment. */
export interface ShotEvent {
  type: 'shot';
  from: string;
  target: string;
  damage: number;
  declared: boolean;
  /** the shooter's card */
  card: string;
  target_card: string;
}

/** A card from the hand is placed on `square`; `forced` when no other deployment was legal. */
export interface DeployEvent {
  type: 'deploy';
  card: string;
  square: string;
  player: Seat;
  forced: boolean;
}

/** A forced deployment shows the whole hand (null: a card the reader may not see). */
export interface RevealEvent {
  type: 'reveal';
  player: Seat;
  hand: (string | null)[];
}

export interface EliminatedEvent {
  type: 'eliminated';
  square: string;
  card: string;
  owner: Seat;
}

/** A berserker advances into a square it helped to empty. */
export interface AdvanceEvent {
  type: 'advance';
  from: string;
  to: string;
  owner: Seat;
  card: string;
}

export interface MoveEvent {
  type: 'move';
  from: string;
  to: string;
  owner: Seat;
  card: string;
}

export interface RecallEvent {
  type: 'recall';
  square: string;
  card: string;
  player: Seat;
}

/** A card drawn (never named: events are public). */
export interface DrawEvent {
  type: 'draw';
  player: Seat;
}

/** No reinforcement was possible. */
export interface PassEvent {
  type: 'pass';
  player: Seat;
}

/** `player` eliminated the enemy general and plays again. */
export interface ExtraTurnEvent {
  type: 'extra_turn';
  player: Seat;
}

export interface ResignEvent {
  type: 'resign';
  player: Seat;
}

/** `player` ran out of time or missed the turn deadline. */
export interface TimeoutEvent {
  type: 'timeout';
  player: Seat;
}

export interface DrawAgreedEvent {
  type: 'draw_agreed';
}

/** `player` aborted the game before both players had made their first turn. */
export interface AbortEvent {
  type: 'abort';
  player: Seat;
}

/**
 * The game is over (always the last event): the result's `winner` (null: a draw or an aborted
 * game), `reason` in English, the `termination` code, and the facts that code needs.
 */
export interface ResultEvent {
  type: 'result';
  winner: Seat | null;
  reason: string;
  termination: string;
  count?: number;
  player?: Seat;
  threshold?: string;
  ending?: string;
}

/** A log event, discriminated by `type`. */
export type LogEvent =
  | ShotEvent
  | DeployEvent
  | RevealEvent
  | EliminatedEvent
  | AdvanceEvent
  | MoveEvent
  | RecallEvent
  | DrawEvent
  | PassEvent
  | ExtraTurnEvent
  | ResignEvent
  | TimeoutEvent
  | DrawAgreedEvent
  | AbortEvent
  | ResultEvent;

/** Both ways assignable: a compile error below when the kinds here and the API's part. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** The union above is the API's (the generated components of lordsofwar/rules/events.py). */
export type LogEventIsTheApis = Holds<Same<LogEvent, Schemas['LogEntry']['events'][number]>>;

export type LogEntry = Omit<Schemas['LogEntry'], 'events'> & { events: LogEvent[] };

export type GamePlayer = Schemas['GamePlayer'];
export type RatingChange = Schemas['RatingChange'];

/** The game's meta data. */
export type Game = Omit<Schemas['GameMeta'], 'players' | 'clocks' | 'ratings'> & {
  players: Record<number, GamePlayer>;
  clocks: Record<number, number> | null;
  ratings: Record<number, RatingChange> | null;
};

/** What the viewer may know of a deck's cards. */
export type DeckInfo = Schemas['DeckKnowledge'];

/** GET /api/games/{id}, a "state" or "update" message of the live channel. */
export type GameState = Omit<Schemas['GameState'], 'game' | 'view' | 'log' | 'deck_cards'> & {
  game: Game;
  view: View;
  log: LogEntry[];
  deck_cards: Record<number, DeckInfo | null>;
};

/** POST /api/games/{id}/hint */
export type Hint = Schemas['Hint'];

/** A game record (notation.md section 5). */
export type GameRecord = Omit<Schemas['GameRecord'], 'players'> & { players: Record<number, Schemas['RecordPlayer']> };

/** GET /api/games/{id}/replay */
export type ReplayDoc = Omit<Schemas['Replay'], 'record' | 'positions' | 'log'> & {
  record: GameRecord;
  positions: View[];
  log: LogEntry[];
};

/** One decision of an analysis (docs/bots.md). */
export type Decision = Schemas['Decision'];
export type Analysis = Schemas['AnalysisResult'];

/** GET/POST /api/games/{id}/analysis */
export type AnalysisDoc = Schemas['Analysis'];

/** A game's chat message (GET/POST /api/games/{id}/chat, the socket's `chat` message). */
export type ChatMessage = Schemas['ChatMessageOut'];
/** GET /api/games/{id}/chat: the rooms the reader may read, and where they write. */
export type ChatHistory = Schemas['ChatHistory'];
/** The game socket's `chat` message: a new message of a room the reader reads. */
export type ChatSocketMessage = Schemas['ChatSocketMessage'];

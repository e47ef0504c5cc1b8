/**
 * The game's documents as the browser client reads them, from the API's generated types
 * (api-types.d.ts, openapi-typescript over the server's OpenAPI schema): the card facts
 * (GET /api/cards), a position or a player's view of it, the game's state and the live channel's
 * messages, its log, the replay and its analysis. Two adaptations for the client: a player's
 * number is a `number` (the client computes `3 - p`), so the documents keyed by player ("1", "2")
 * are read as records by number; and a log event's fields, which the schema leaves open, are named.
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

/** A log event: its type and the fields the events carry (the schema leaves them open). */
export type LogEvent = Schemas['Event'] & {
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
  reason?: string | null;
};

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

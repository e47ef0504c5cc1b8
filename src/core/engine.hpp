// The rules of Lords of War, compiled: the same rules as lordsofwar/rules/engine.py.
//
// Every function here mirrors one of engine.py (named in its comment), and section numbers
// refer to clarifications.md, as there. Squares are the Python engine's integers:
// (x + 2^15) * 2^16 + (y + 2^15), so sorting them sorts by column, then row, as Python does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace low {

using Sq = uint32_t;
constexpr int OFFSET = 1 << 15;
constexpr int LIMIT = OFFSET - 64;  // mat.LIMIT: largest |x| or |y| of an off-mat square
constexpr int HAND_LIMIT = 6;
constexpr int WIDTH = 7;
constexpr int HEIGHT = 6;

inline Sq make_sq(int x, int y) { return (Sq)(x + OFFSET) << 16 | (Sq)(y + OFFSET); }
inline int sq_x(Sq s) { return (int)(s >> 16) - OFFSET; }
inline int sq_y(Sq s) { return (int)(s & 0xffff) - OFFSET; }

// mat.NEIGHBOUR_DELTAS: F, FR, R, BR, B, BL, L, FL as player 1 sees them.
constexpr int DX[8] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int DY[8] = {1, 1, 0, -1, -1, -1, 0, 1};
inline Sq step(Sq s, int dir) { return make_sq(sq_x(s) + DX[dir], sq_y(s) + DY[dir]); }

// Per-unit flags of the turn under way (position.py).
enum Flag : uint8_t { DEPLOYED = 1, SUPPORTED = 2, SHOT = 4, TOOK_PART = 8, MOVED = 16, ENGAGED_AT_START = 32 };
enum Phase : uint8_t { PRE = 0, ADVANCE = 1, POST = 2, OVER = 3 };
enum ActionKind : uint8_t { A_DEPLOY, A_SHOOT, A_ADVANCE, A_MOVE, A_RECALL, A_DRAW, A_PASS };

struct HiddenError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct IllegalError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A card as a unit of one owner (position.UnitKind): its tables turned to the owner's facing.
struct Kind {
    int defence = 0;
    int damage = 0;
    bool berserker = false, cavalry = false, spear = false, support = false, general = false, command = false;
    int n_attacks = 0;
    uint8_t attack_dir[8] = {};  // in the card's order of attacks; a world direction index
    int attack_val[8] = {};
    int attack_at[8] = {};  // world direction -> attack value (0: none)
    int card_attack[8] = {};  // the card's own direction -> attack value
    int cls = 0;  // infantry, cavalry, berserker, spear, ranged
    uint8_t dirmask = 0;
    std::vector<std::pair<int, int>> targets;  // world (dx, dy) of the target grid
    int n_moves = 0;
    uint8_t move_dir[8] = {};
};

// What the core needs of one card, as lordsofwar/core/_native.py reads it from
// lordsofwar.rules.cards.Card: its traits come from the card data (the core knows no class names).
struct CardSpec {
    std::string id;
    int cls = 0;  // the index of its class in cards.CLASSES (the observation's one-hot)
    bool berserker = false, cavalry = false, spear = false;  // the classes with rules of their own
    bool support = false;  // Card.is_support
    bool general = false;
    bool command = false;  // Card.is_command
    int defence = 0;
    std::vector<std::pair<int, int>> attacks;  // (card-frame direction 0-7, value > 0), in order
    int damage = 0;
    std::vector<std::pair<int, int>> targets;  // (right, forward)
    std::vector<int> moves;                    // card-frame directions 0-7
};

// The cards of one CardSet, indexed in its iteration order, with both owners' kinds.
struct CardTable {
    std::vector<std::string> ids;
    std::vector<Kind> kinds[3];
    std::vector<std::pair<int, int>> shot_offsets;  // sorted union of every target offset
    int min_defence = 0;  // the lowest defence of a card, or 0 when none is below it
    explicit CardTable(const std::vector<CardSpec>& specs);
    int offset_index(int right, int forward) const;
};

struct Variant {
    bool intermediate = true;
    bool visible = false;
    bool bordered = true;
    int units_to_win = 20;
    int commands_to_win = 4;
    int no_progress_turns = 40;
};

struct Action {
    uint8_t kind = A_PASS;
    int16_t card = -1;
    Sq from = 0, to = 0;
    bool operator==(const Action& o) const {
        return kind == o.kind && card == o.card && from == o.from && to == o.to;
    }
};

enum EventType : uint8_t { E_REVEAL, E_DEPLOY, E_SHOT, E_ELIMINATED, E_ADVANCE, E_MOVE, E_RECALL, E_DRAW, E_PASS, E_EXTRA, E_RESULT };

struct Event {
    explicit Event(uint8_t t) : type(t) {}
    uint8_t type;
    int8_t player = 0;  // player or owner
    int16_t card = -1, card2 = -1;
    Sq a = 0, b = 0;
    int damage = 0;
    bool flag = false;         // forced (deploy), declared (shot)
    std::vector<int16_t> hand;  // reveal
};

struct Unit {
    Sq sq;
    int16_t card;
    uint8_t owner;
    uint8_t flags = 0;
    int shot_damage = -1;  // -1: none this turn
    Sq shot_target = 0;
    bool has_target = false;
    uint32_t seq = 0;  // placement order (the Python board's dict order)
    // The attacks on this unit (its entry of the engagement map, the attackers, in Python's
    // order): the square each comes from and its value.
    uint8_t n_attacks = 0;
    Sq attack_sq[8];
    int attack_val[8];
};

// This turn's deployments on the bordered mat, as one bitboard of squares per card in hand
// (cards in the order of their first place in the hand, squares in ascending order).
struct DeployPlan {
    int n = 0;
    int count = 0;
    int16_t card[HAND_LIMIT] = {};
    uint64_t squares[HAND_LIMIT] = {};
};

struct AdvanceRound {
    std::vector<int> owners;
    std::vector<std::pair<Sq, std::vector<Sq>>> candidates;
    std::vector<Sq> taken;
    bool advanced = false;
};

// How a game ended beside its winner (lordsofwar.rules.result.Result): the termination's code and
// what its sentence needs ("", -1 and 0 where the termination needs nothing).
struct Outcome {
    std::string termination, threshold, ending;
    int count = -1, player = 0;
};

// A square's name in the notation (notation.md section 2; mat.name): "d3" on the printed mat,
// "x,y" off it.
std::string square_name(Sq s);

// One unit of a position as the binding loads and exports it: its square, card and owner, and its
// state in the turn under way (flags, shot damage waiting on it or -1, the target of its shot).
struct UnitRecord {
    Sq square = 0;
    int card = -1;
    int owner = 0;
    int flags = 0;
    int shot_damage = -1;
    Sq shot_target = 0;
    bool has_target = false;
};

// A whole position by name, as lordsofwar/core/_native.py hands it over (Game::load) and reads it
// back (Game::record): the units in the order they were placed, then per player (index 0 for
// player 1) the hand, the deck (top first) and the lost pile, -1 for a hidden card.
struct Record {
    int turn = 1, to_move = 1, quiet_turns = 0;
    std::vector<UnitRecord> units;
    std::vector<std::vector<int16_t>> hands{2}, decks{2}, lost{2};
    bool over = false;
    int winner = 0;  // 0: a draw
    Outcome outcome;
    // The turn under way (read only when the game is not over).
    Phase phase = PRE;
    int generals_lost = 0;  // bit p: player p's general was eliminated this turn
    bool eliminated = false, forced = false, in_turn = false;
    bool has_advance = false;
    AdvanceRound advance;
};

class Game {
   public:
    Game(std::shared_ptr<const CardTable> cards, const Variant& v);
    Game(const Game&) = default;
    Game(Game&&) = default;
    Game& operator=(Game&&) = default;
    // A copy into a game whose vectors keep their capacity (the bots' scratch positions): as
    // the default copy, less the work that changes nothing (engine.cpp). A new member of Game
    // must be copied there too.
    Game& operator=(const Game& o);

    // --- the state, read only (set with load, deal and the rules)
    const CardTable& cards() const { return *cards_; }
    const std::shared_ptr<const CardTable>& card_table() const { return cards_; }
    const Variant& variant() const { return v_; }
    int turn() const { return turn_; }
    int to_move() const { return to_move_; }
    int quiet_turns() const { return quiet_turns_; }
    const std::vector<int16_t>& hand(int player) const { return hands_[player]; }
    const std::vector<int16_t>& deck(int player) const { return decks_[player]; }  // top first
    const std::vector<int16_t>& lost(int player) const { return lost_[player]; }
    bool over() const { return over_; }
    int winner() const { return winner_; }  // 0: a draw
    const Outcome& outcome() const { return outcome_; }
    Phase phase() const { return phase_; }
    int generals_lost() const { return generals_lost_; }
    bool forced() const { return forced_; }
    // The berserker advance under way (engine.py's pos.advance), or null.
    const AdvanceRound* advance() const { return has_advance_ ? &adv_ : nullptr; }

    // A position by name (start of turn or mid-turn): units placed in the record's order.
    void load(const Record& r);
    Record record() const;
    // A player's hand and deck (top first) as a deal makes them; the lost pile emptied.
    void set_cards(int player, std::vector<int16_t> hand, std::vector<int16_t> deck);
    // A player's hidden cards (-1), of the hand first, then the deck, made cards[0], cards[1], ...
    void reveal(int player, const int16_t* cards);

    // An action in the notation (notation.md section 4; str(actions.Action)), as OpenSpiel's
    // State::ActionToString: the one writer of action text for the core.
    std::string action_to_string(const Action& a) const;

    // --- the board (position.BasePosition.place / remove)
    int unit_at(Sq s) const {
        unsigned i = (unsigned)(sq_x(s) - ox_), j = (unsigned)(sq_y(s) - oy_);
        if (i >= (unsigned)w_ || j >= (unsigned)h_) return -1;
        return cells_[i * h_ + j];
    }
    // unit_at of the square (x, y), without building the square.
    int unit_at_xy(int x, int y) const {
        unsigned i = (unsigned)(x - ox_), j = (unsigned)(y - oy_);
        if (i >= (unsigned)w_ || j >= (unsigned)h_) return -1;
        return cells_[i * h_ + j];
    }
    const std::vector<Unit>& units() const { return units_; }
    // The bordered mat's squares that hold a unit of ``player`` (bit x * 6 + y; 0 on the unbordered mat).
    uint64_t occupied(int player) const { return occ_[player]; }
    bool on_mat(Sq s) const {
        int x = sq_x(s), y = sq_y(s);
        if (v_.bordered) return x >= 0 && x < WIDTH && y >= 0 && y < HEIGHT;
        return x >= -LIMIT && x <= LIMIT && y >= -LIMIT && y <= LIMIT;
    }
    const Kind& kind(const Unit& u) const { return cards_->kinds[u.owner][u.card]; }

    int decider() const { return has_advance_ && phase_ == ADVANCE ? adv_.owners[0] : to_move_; }
    bool hidden_cards() const {
        for (int p = 1; p <= 2; ++p) {
            for (const auto* v : {&hands_[p], &decks_[p]}) {
                if (std::find(v->begin(), v->end(), -1) != v->end()) return true;
            }
        }
        return false;
    }

    // --- the rules (engine.py)
    void start_turn();
    // engine.legal_actions; ``with_reinforcements`` false leaves out the draw, the recalls and the
    // pass (the greedy bot's simulated turns never play them).
    void legal(std::vector<Action>& out, bool with_reinforcements = true);
    void push(const Action& a, std::vector<Event>* events);  // the action must be legal
    void deploy_options(int player, int turn, std::vector<Action>& out, bool& forced_out) const;
    void deploy_plan(int player, int turn, DeployPlan& plan, bool& forced_out) const;
    static void append_plan(const DeployPlan& plan, std::vector<Action>& out);
    // engine._resolve_start: the turn's deployments are listed once; with none the turn goes to
    // the post-deployment phase.
    void resolve_start();
    // In the pre-deployment phase (after resolve_start): the deployments, counted and by index.
    int deploy_count() const { return deploy_count_; }
    Action deploy_at(int i) const;
    // The bordered mat's deployments of this turn as bitboards (after resolve_start; bit x * 6 + y).
    const DeployPlan& plan() const { return plan_; }
    void shots(std::vector<Action>& out) const;
    bool could_deploy(int player, int turn) const;
    int commands_eliminated(int player) const;

   private:
    std::shared_ptr<const CardTable> cards_;
    Variant v_;
    int turn_ = 1, to_move_ = 1, quiet_turns_ = 0;
    std::vector<int16_t> hands_[3], decks_[3], lost_[3];  // -1: a hidden card; decks top first
    bool over_ = false;
    int winner_ = 0;  // 0: a draw
    Outcome outcome_;
    Phase phase_ = PRE;
    int generals_lost_ = 0;
    bool eliminated_ = false, forced_ = false, in_turn_ = false;
    bool has_advance_ = false;
    AdvanceRound adv_;
    std::vector<Unit> units_;
    std::vector<int16_t> cells_;
    // position.near: per player and square, the directions in which that player's units stand.
    std::vector<uint8_t> near_[3];
    // The bordered mat as bitboards (bit x * 6 + y): each player's units.
    uint64_t occ_[3] = {0, 0, 0};
    void adjacent_bitboards(int owner, uint64_t by_dir[8]) const;
    // This turn's deployments (engine._deploys), computed at the first need.
    DeployPlan plan_;              // the bordered mat
    std::vector<Action> deploys_;  // the unbordered mat
    int deploy_count_ = 0;
    bool deploys_valid_ = false;
    int ox_ = 0, oy_ = 0, w_ = WIDTH, h_ = HEIGHT;
    uint32_t next_seq_ = 0;
    mutable std::vector<uint32_t> stamp_;
    mutable uint32_t stamp_now_ = 0;

    void place(Sq s, int card, int owner);
    void remove(Sq s);
    void cover(Sq s);
    void relocate(Sq src, Sq dst);
    bool can_shoot(const Unit& u) const;
    bool recallable(const Unit& u, int flags) const;
    bool engaged_by_spear(const Unit& u) const;
    void moves(std::vector<Action>& out) const;
    void reinforcements(std::vector<Action>& out) const;
    void advance_choices(std::vector<Action>& out) const;
    void waiting(int owner, std::vector<std::pair<Sq, std::vector<Sq>>>& out) const;
    bool auto_advances(int owner, std::vector<Event>* ev);
    void do_advance(Sq b, Sq t, std::vector<Event>* ev);
    void resolve_advances(std::vector<Event>* ev);
    void after_check(std::vector<std::pair<Sq, std::vector<Sq>>>&& candidates);
    std::vector<std::pair<Sq, std::vector<Sq>>> check(std::vector<Event>* ev);
    bool could_act(int player, int turn) const;
    bool threshold_result(int& win, Outcome& out) const;
    void end_turn(std::vector<Event>* ev);
    void finish(int win, const Outcome& out, std::vector<Event>* ev);
    void neighbour_squares(std::vector<Sq>& out) const;
    uint8_t near_mask(Sq t, int owner) const {
        unsigned i = (unsigned)(sq_x(t) - ox_), j = (unsigned)(sq_y(t) - oy_);
        if (i >= (unsigned)w_ || j >= (unsigned)h_) return 0;
        return near_[owner][i * h_ + j];
    }
    void mark_near(Sq s, int owner, bool on);
};

}  // namespace low

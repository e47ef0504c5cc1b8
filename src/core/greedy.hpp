// The greedy bot (lordsofwar/bots/greedy.py), compiled: the same decision rule, for the batch's
// opponents and for Game.greedy_action (docs/core.md, "The greedy bot").
//
// It reads only what its decider may know: the mat, its own hand, the sizes of the piles and
// decks. It simulates its candidate actions on copies of the game, never a reinforcement, and
// follows the rest of the turn greedily, as the Python bot does on its view.
#pragma once

#include <optional>

#include "play.hpp"

namespace low {

// What greedy.py computes in Python and hands over: the value of eliminating each card of the
// table (greedy.card_value, for the game's variant), and the bot's constants.
struct GreedyParams {
    std::vector<double> values;  // per card index
    int fresh_arrow = 3;         // greedy.FRESH_ARROW
    double enemy_weight = 0.25;  // GreedyBot.enemy_weight
    int rollout_pushes = 150;    // greedy.ROLLOUT_PUSHES
    // Judge a candidate without playing it where the result is sure to be the same (docs/core.md,
    // "The greedy bot"); false plays every one: the reference the tests hold the shortcuts to.
    bool shortcuts = true;
};

// An action's score for the decider and its tie-break key, higher is better (GreedyBot.evaluate).
struct GreedyScore {
    double score = 0, preference = 0, exposure = 0;
};

// lordsofwar.bots.features.features: the GREEDY_FEATURES numbers per action that a network with
// an action head reads, from one decision's raw (score, preference, exposure) triples (``raw``,
// n x 3, the actions in ascending id order, as float32 like the Python side keeps them) into
// ``out`` (n x GREEDY_FEATURES).
constexpr int GREEDY_FEATURES = 11;
void greedy_features(const float* raw, int n, float* out);

class Greedy {
   public:
    explicit Greedy(GreedyParams p) : p_(std::move(p)) {}
    const GreedyParams& params() const { return p_; }

    // GreedyBot.choose: the action the bot plays at ``g`` for its decider (g must not be over and
    // must have a legal action); among the equally best, one drawn by ``rng``.
    Action choose(Game& g, Rng& rng);
    // GreedyBot.evaluate of every legal action of ``g``, in the order of g.legal().
    void evaluate_all(Game& g, std::vector<Action>& actions, std::vector<GreedyScore>& scores);
    // The per-card traits made for g's card table now (they are kept by the table's address: a
    // caller that reuses the bot makes them before it lets go of the table they were made for).
    void use_tables(const Game& g) const { tables(g); }

   private:
    GreedyParams p_;
    int budget_ = 0;
    std::vector<Action> legal_, options_;
    std::vector<GreedyScore> scores_;
    std::vector<int> finalists_;
    // Per tie-break preference met so far in a decision, the highest score with it.
    std::vector<std::pair<double, double>> top_score_;
    bool dominated(double score, double preference) const;
    void note(const GreedyScore& s);
    mutable std::vector<int> reach_;
    mutable const CardTable* table_ = nullptr;  // the card table the flat traits below are of
    mutable std::vector<uint8_t> ranged_, moves_, command_;
    size_t root_lost_[3] = {};  // the lost piles' sizes at the position being decided
    int root_commands_[3] = {};  // the command units in them
    void set_root(const Game& g);
    mutable std::vector<int> defence_;
    std::vector<Game> pool_;  // scratch copies, reused (their vectors keep their capacity)

    // ``floor``: a score below it minus EPS cannot be among the best, so its tie-break is not needed.
    GreedyScore evaluate(const Game& view, const Action& a, int me, double floor);
    int rest_of_turn(int at, int me, int turn, double& total);
    // The gain of pushing ``a`` at ``pos`` where it is sure without playing it (false: play it):
    // rest_of_turn plays only the other options, and the one it goes on with. Game::check's sums
    // at pos, made at the first need per position (totals_ready_ false).
    bool predict(const Game& pos, const Action& a, int me, double& g);
    void make_totals(const Game& pos);
    bool totals_ready_ = false, shooters_ = false;
    // predict() of most deployments (deploy_gain): per position (totals_stamp_), per square the
    // attacks a unit placed there meets, and the gain of the units doomed at pos.
    int deploy_gain(const Game& pos, const Action& a, int me, double& g);
    uint64_t totals_stamp_ = 1;  // 64 bits: never wraps round to a stamp a square still holds
    uint64_t placed_stamp_[WIDTH * HEIGHT] = {};
    int placed_at_[WIDTH * HEIGHT] = {};
    bool doomed_ready_ = false, berserker_by_doomed_ = false;
    double doomed_gain_ = 0;
    struct Doomed {
        Sq sq;
        int owner, card;
    };
    std::vector<Doomed> doomed_list_;
    std::vector<int> doomed_at_;  // the units doomed at pos (their sums past their defence)
    std::vector<int> delta_, changed_;  // per unit, scratch: the change of its sum (all 0 between uses)
    std::vector<uint8_t> seen_;  // per unit, scratch (all 0 between uses)
    std::vector<int> totals_;
    double gain(const Game& before, const Game& after, int me) const;
    // ``extra_card`` (>= 0): as if the decider had lost that card too.
    double terminal(const Game& g, int me, int extra_card = -1) const;
    void tables(const Game& g) const {
        if (&g.cards() != table_) make_tables(g);
    }
    void make_tables(const Game& g) const;
    template <typename F>
    void each_danger(const Game& g, F&& f) const;  // f(unit index, danger) for every unit
    bool may_shoot_or_move(const Game& g) const;
    double exposure(const Game& g, int me) const;
    double reinforcement_preference(const Game& view, const Action& a, int me) const;
    Game& scratch(size_t i, const Game& from);

    // The quiet deployments: before the deployment, on the bordered mat, with nothing doomed and
    // nothing of the mover's to shoot or move, a deployment that eliminates nothing and gives its
    // unit no shot or move ends the simulated turn where it stands. Its score is the root's
    // verdict and its exposure the root's, changed where the new unit touches: no copy, no push.
    // One whose unit alone falls in its check leaves the root as it was, its card lost.
    //
    // Lines: after a deployment that eliminates a given set of enemy units (none, where the mover
    // may eliminate something with a shot or a move after any deployment: a "line" root), the
    // simulated turn goes on the same way whatever unit was deployed, as long as that unit cannot
    // move, cannot come to shoot later, and stays out of the line's way (the squares a move might
    // go to; the units an option's check would see change, or else the very attacks and shots of
    // the line's reference): per line, the turn is played once, after the first deployment that
    // qualifies (the reference), and each later one takes its score, and its exposure from the
    // line's end with the reference unit's slot given to the new one.
    enum { ROOT_UNKNOWN, ROOT_QUIET, ROOT_LINE, ROOT_BUSY };
    int root_state_ = ROOT_UNKNOWN;
    double root_terminal_ = 0;
    std::vector<int> margin_;  // per unit: its defence less the damage the next check deals it
    // Per square of the mat, what a unit of the decider deployed there meets whatever its card
    // (made at the first need in a decision): the enemy attacks on it, all and those of units
    // that have not shot, the free enemy ranged units' damage on it, whether a square beside it
    // stays empty, and the units beside it that it leaves with no empty square beside them.
    struct SquareInfo {
        bool known = false, open = false;
        int8_t n_in = 0, n_closed = 0;
        uint8_t enemy_dirs = 0;  // the directions with an enemy unit beside it
        int in_all = 0, in_check = 0, reach = 0;
        int8_t closed[8] = {};
        int16_t next[8] = {};  // the unit beside it in each direction of enemy_dirs
    };
    // A position a deployment is judged against without playing it: the root itself, or a line's
    // end without its reference unit (``ghost``, its slot in the units' order; -1: none). Per unit
    // (by index in that position; the ghost's entries unused): the sum each_danger rates it by,
    // scratch copy of it, its term of exposure() and the running total before it, the attacks on
    // it (the ghost's left out); per square, the free enemy ranged units' damage and SquareInfo.
    struct Base {
        int ghost = -1;
        uint64_t occupied = 0;  // the bordered mat's occupied squares (the ghost's left out)
        std::vector<int> r0, rr, engaged;
        std::vector<double> c0, prefix;
        int reach_at[WIDTH * HEIGHT] = {};
        SquareInfo squares[WIDTH * HEIGHT];
    };
    Base root_;
    void make_base(const Game& g, int ghost, int me, Base& b);
    // What a deployment meets at the root, from its square's SquareInfo: the enemy units it
    // attacks and survive the check, those that fall (their squares), whether it is a free
    // ranged unit.
    struct Local {
        int sq = 0;
        const SquareInfo* q = nullptr;
        int n_hit = 0;
        int hit[8], hit_val[8];
        uint64_t hit_squares = 0, killed = 0;
        bool free_ranged = false;
        int n_shot = 0;  // the enemies it may shoot at once (LOCAL_QUIET, LOCAL_SHOOTS), as listed
        int shot[16];
    };
    // LOCAL_QUIET: its check eliminates nothing and its unit can neither move nor eliminate with a shot now;
    // LOCAL_SHOOTS: the same, but a shot of it may eliminate; LOCAL_LOST: the check eliminates
    // its unit alone; LOCAL_KILL: enemy units alone, and its unit cannot move (nor shoot: it took
    // part); LOCAL_BUSY: anything else.
    enum { LOCAL_QUIET, LOCAL_SHOOTS, LOCAL_LOST, LOCAL_KILL, LOCAL_BUSY };
    int local_quiet(const Game& g, const Action& a, int me, Local& l);
    // exposure() of the position ``a`` makes from b (the root: its unit last; a line's end: its
    // unit in the ghost's slot).
    double deploy_exposure(const Game& g, const Action& a, int me, Base& b, const SquareInfo& q, const Local& l);
    // Where the mover may shoot or move at the root, the simulated turn goes on past a quiet
    // deployment to those options; it stops there still if each of them is quiet (``predict``) after
    // it. Per option (a shot, or a move to a square) the units whose sums it raises, each with the
    // damage the deployment may add to it before the option eliminates (limits_).
    bool root_moves_ = false;
    std::vector<int> option_to_, option_end_;  // per option: the square a move goes to (-1: a shot), its limits' end
    std::vector<std::pair<int, int>> limits_;
    std::vector<int> added_;  // per unit, scratch: the damage the deployment adds to it
    bool post_options(const Game& g, int me, bool shooters);
    const SquareInfo& square_info(const Game& g, int sq, int me, Base& b) {
        const SquareInfo& q = b.squares[sq];
        return q.known ? q : make_square_info(g, sq, me, b);
    }
    const SquareInfo& make_square_info(const Game& g, int sq, int me, Base& b);
    int quiet_root(const Game& g, int me);
    // A deployment at a quiet or line root: SHORT_DONE (s judged), SHORT_PLAY (play it),
    // SHORT_RECORD (play it as the reference of its line: rest_of_turn notes the line,
    // end_reference keeps it).
    enum { SHORT_DONE, SHORT_PLAY, SHORT_RECORD };
    int deploy_shortcut(const Game& g, const Action& a, int me, double floor, GreedyScore& s);
    bool may_ever_shoot(const Game& g, const Action& a, int me, const Local& l) const;
    struct Line;
    int from_line(Line& line, const Game& g, const Action& a, int me, double floor, GreedyScore& s, const Local& l);
    bool advance_near(const Game& g, uint64_t killed, const Action& a) const;
    bool advance_on(const Game& g, const Local& l) const;
    struct Line {
        uint64_t killed = 0;  // the enemy units the deployments of this line eliminate (squares)
        // Whether its deployments attack the very surviving enemies of ``attacks`` (unit index,
        // value; ascending), or any that the line leaves alone (its reference none).
        bool exact = false;
        int n_attacks = 0;
        std::pair<int, int> attacks[24];  // then its shots' targets (-1 - unit index, damage)
        enum { NONE, READY, FAILED } state = NONE;
        int tries = 0;
        uint64_t moves = 0;    // squares a move of the mover might go to, anywhere along the line
        uint64_t changed = 0;  // squares of the units whose sums an option of the line changes
        double score = 0;
        std::optional<Game> end;  // where the reference's line stops
        Sq reference = 0;         // the reference unit's square
        bool base_ready = false;
        Base base;  // end without the reference unit (made at the first need)
    };
    std::vector<Line> lines_;  // the root's lines, the first n_lines_ in use (kept for their memory)
    size_t n_lines_ = 0;
    Line* recording_ = nullptr;  // the line rest_of_turn notes, while its reference is played
    bool line_valid_ = false;
    Line& line_of(uint64_t killed, const Local* attacks, int damage);
    void end_reference(Line& line, const Game& end, const Action& a, const GreedyScore& s);
    void note_step(const Game& pos, int me);
    std::vector<int> touched_;
    double term(int card, int owner, int r, int me) const;
};

}  // namespace low

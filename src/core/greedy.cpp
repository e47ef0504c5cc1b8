#include "greedy.hpp"

namespace low {

namespace {

constexpr double WIN = 100000.0;  // greedy.WIN
constexpr double EPS = 1e-9;

bool reinforcement(const Action& a) { return a.kind == A_DRAW || a.kind == A_RECALL || a.kind == A_PASS; }

// 8.2 (Game::threshold_result, winner only): 1 or 2, 0 for a draw, -1 while no threshold is reached.
// ``commands_lost[p]``: the command units player p has lost (Game::commands_eliminated(3 - p)).
int threshold_winner(const Game& g, const int commands_lost[3]) {
    const Variant& v = g.variant();
    int U = v.units_to_win, C = v.commands_to_win;
    int u[3] = {0, (int)g.lost(2).size(), (int)g.lost(1).size()};
    if (u[1] < U && u[2] < U && u[1] < C && u[2] < C) return -1;
    int c[3] = {0, commands_lost[2], commands_lost[1]};
    bool cmd[3] = {false, c[1] >= C, c[2] >= C};
    bool reached[3] = {false, cmd[1] || u[1] >= U, cmd[2] || u[2] >= U};
    if (reached[1] != reached[2]) return reached[1] ? 1 : 2;
    if (!reached[1]) return -1;
    if (cmd[1] != cmd[2]) return cmd[1] ? 1 : 2;
    // Both reached the same threshold: the other count decides first, then the threshold's own.
    const int* first = cmd[1] ? u : c;
    const int* second = cmd[1] ? c : u;
    if (first[1] != first[2]) return first[1] > first[2] ? 1 : 2;
    if (second[1] != second[2]) return second[1] > second[2] ? 1 : 2;
    return 0;
}

// Per square of the bordered mat (bit x * 6 + y), its neighbours on the mat.
struct NeighbourMasks {
    uint64_t m[WIDTH * HEIGHT] = {};
    NeighbourMasks() {
        for (int x = 0; x < WIDTH; ++x) {
            for (int y = 0; y < HEIGHT; ++y) {
                for (int d = 0; d < 8; ++d) {
                    int tx = x + DX[d], ty = y + DY[d];
                    if (tx >= 0 && tx < WIDTH && ty >= 0 && ty < HEIGHT) m[x * HEIGHT + y] |= 1ULL << (tx * HEIGHT + ty);
                }
            }
        }
    }
    uint64_t operator[](int i) const { return m[i]; }
};
const NeighbourMasks NEIGHBOURS_ON_MAT;

}  // namespace

Game& Greedy::scratch(size_t i, const Game& from) {
    pool_[i] = from;
    return pool_[i];
}

double Greedy::gain(const Game& before, const Game& after, int me) const {
    // GreedyBot._gain: the value of the enemy units eliminated minus that of one's own (the
    // simulated actions end no turn, so no result comes of them).
    double total = 0;
    for (int p = 1; p <= 2; ++p) {
        const auto& was = before.lost(p);
        const auto& now = after.lost(p);
        for (size_t i = was.size(); i < now.size(); ++i) {
            double v = p_.values[(size_t)now[i]];
            total += p == me ? -v : v;
        }
    }
    return total;
}

double Greedy::terminal(const Game& g, int me) const {
    // GreedyBot._terminal: WIN (or minus it) when the thresholds decide the game at the end of this turn.
    if (g.over()) return 0.0;
    // The lost piles only grow along a simulated line: the root's command units lost, plus the new ones.
    int commands_lost[3] = {0, root_commands_[1], root_commands_[2]};
    for (int p = 1; p <= 2; ++p) {
        const auto& lost = g.lost(p);
        for (size_t i = root_lost_[p]; i < lost.size(); ++i) commands_lost[p] += command_[(size_t)lost[i]];
    }
    int w = threshold_winner(g, commands_lost);
    if (w <= 0) return 0.0;
    return w == me ? WIN : -WIN;
}

void Greedy::make_tables(const Game& g) const {
    // The traits the loops below read per card, flat (made again for another card table).
    const CardTable* t = &g.cards();
    table_ = t;
    size_t n = t->ids.size();
    ranged_.assign(n, 0), moves_.assign(n, 0), command_.assign(n, 0), defence_.assign(n, 0);
    for (size_t c = 0; c < n; ++c) {
        const Kind& k = t->kinds[1][c];
        ranged_[c] = !k.targets.empty(), moves_[c] = k.n_moves > 0, command_[c] = k.command;
        defence_[c] = k.defence;
    }
}

void Greedy::set_root(const Game& g) {
    tables(g);
    for (int p = 1; p <= 2; ++p) {
        const auto& lost = g.lost(p);
        root_lost_[p] = lost.size();
        root_commands_[p] = 0;
        for (int16_t c : lost) root_commands_[p] += command_[(size_t)c];
    }
}

template <typename F>
void Greedy::each_danger(const Game& g, F&& f) const {
    // GreedyBot._danger: per unit (in g.units() order), how close it is to being eliminated in
    // its enemy's next turn: the damage on it, FRESH_ARROW with an empty square beside it, the
    // damage of free enemy ranged units that reach it; 1 past its defence, else a fraction.
    tables(g);
    const auto& units = g.units();
    auto& reach = reach_;
    reach.assign(units.size(), 0);
    for (const Unit& u : units) {
        if (!ranged_[(size_t)u.card] || u.n_attacks) continue;  // engaged ranged units cannot shoot
        const Kind& k = g.kind(u);
        int x = sq_x(u.sq), y = sq_y(u.sq);
        for (auto [dx, dy] : k.targets) {
            int wi = g.unit_at_xy(x + dx, y + dy);
            if (wi >= 0 && units[wi].owner != u.owner) reach[wi] += k.damage;
        }
    }
    const bool bordered = g.variant().bordered;
    const uint64_t occupied = g.occupied(1) | g.occupied(2);  // the bordered mat, bit x * 6 + y
    for (size_t i = 0; i < units.size(); ++i) {
        const Unit& u = units[i];
        int r = reach[i];
        for (int e = 0; e < u.n_attacks; ++e) r += u.attack_val[e];
        int x = sq_x(u.sq), y = sq_y(u.sq);
        bool open = false;  // an empty square next to it: the enemy may deploy there
        if (bordered) {
            open = (NEIGHBOURS_ON_MAT[x * HEIGHT + y] & ~occupied) != 0;
        } else {
            for (int d = 0; d < 8 && !open; ++d) open = g.unit_at_xy(x + DX[d], y + DY[d]) < 0;
        }
        if (open) r += p_.fresh_arrow;
        int defence = defence_[(size_t)u.card];
        f(i, r > defence ? 1.0 : 0.25 * r / (defence + 1));
    }
}

double Greedy::exposure(const Game& g, int me) const {
    // GreedyBot._exposure: minus the value at risk of one's own units, plus enemy_weight times the enemy's.
    double total = 0;
    const auto& units = g.units();
    each_danger(g, [&](size_t i, double danger) {
        double v = p_.values[(size_t)units[i].card] * danger;
        total += units[i].owner == me ? -v : p_.enemy_weight * v;
    });
    return total;
}

bool Greedy::may_shoot_or_move(const Game& g) const {
    // greedy._may_shoot_or_move: whether the player to move might still shoot or move this turn
    // (a cheap first test, as engine.can_shoot and the moves read it; the legal actions decide).
    tables(g);
    int mover = g.to_move();
    const auto& units = g.units();
    for (const Unit& u : units) {
        if (u.owner != mover) continue;
        size_t c = (size_t)u.card;
        if (moves_[c]) return true;
        if (!ranged_[c] || g.turn() <= 2 || u.n_attacks) continue;
        if (u.flags & (SHOT | TOOK_PART | ENGAGED_AT_START)) continue;
        if ((u.flags & DEPLOYED) && !(u.flags & SUPPORTED)) continue;
        int x = sq_x(u.sq), y = sq_y(u.sq);
        for (auto [dx, dy] : g.kind(u).targets) {
            int wi = g.unit_at_xy(x + dx, y + dy);
            if (wi >= 0 && units[wi].owner != mover) return true;
        }
    }
    return false;
}

double Greedy::reinforcement_preference(const Game& view, const Action& a, int me) const {
    // GreedyBot._reinforcement_preference: draw first; recall only when there is no draw, then
    // the most valuable exposed unit.
    if (a.kind == A_DRAW) return 3.0;
    if (a.kind == A_PASS) return 1.0;
    if (!view.deck(me).empty()) return 0.5;
    size_t i = (size_t)view.unit_at(a.from);
    double at_risk = 0;
    each_danger(view, [&](size_t j, double danger) {
        if (j == i) at_risk = p_.values[(size_t)view.units()[i].card] * danger;
    });
    return 2.0 + at_risk / (at_risk + 1000.0);
}

int Greedy::rest_of_turn(int at, int me, int turn, double& total) {
    // GreedyBot._rest_of_turn: follow the turn greedily from pool_[at]; adds the gain on the way,
    // plus the thresholds' verdict where the line stops, to ``total``, and returns the pool index
    // of the position where it stops (indices move, not games: a game is costly to swap).
    int child = (at + 1) % 3, best = (at + 2) % 3;
    while (true) {
        Game& pos = pool_[(size_t)at];
        if (pos.over()) return at;
        int decider = pos.decider();
        if (pos.turn() != turn || (decider != me && pos.phase() != ADVANCE)) break;
        if (pos.phase() == POST && !may_shoot_or_move(pos)) break;  // only the reinforcement is left
        try {
            pos.legal(options_, false);  // no reinforcement: it would end the turn
        } catch (const HiddenError&) {
            break;
        }
        if (options_.empty() || budget_ <= 0) break;
        bool optional = pos.phase() == POST;
        bool maximise = decider == me;
        bool found = false;
        double best_key = 0, best_gain = 0;
        int best_deploy = 0;
        for (const Action& a : options_) {
            if (budget_ <= 0) break;
            --budget_;
            Game& next = pool_[(size_t)child];
            next = pos;
            try {
                next.push(a, nullptr);
            } catch (const HiddenError&) {
                continue;
            }
            double g = gain(pos, next, me);
            double key = maximise ? g : -g;
            int deploy = a.kind == A_DEPLOY;  // before the deployment, a deploy beats a shot that gains as much
            if (!found || key > best_key || (key == best_key && deploy > best_deploy)) {
                found = true, best_key = key, best_gain = g, best_deploy = deploy;
                std::swap(child, best);
            }
        }
        if (!found) break;
        if (optional && maximise && best_gain <= EPS) break;  // nothing more to gain: the reinforcement comes next
        total += best_gain;
        std::swap(at, best);
    }
    total += terminal(pool_[(size_t)at], me);
    return at;
}

bool Greedy::dominated(double score, double preference) const {
    // An action another one beats on the tie-break with a score at least as high is never among
    // the best (if it reaches the best score, so does the other), so its exposure is not needed.
    for (const auto& [pref, top] : top_score_) {
        if (pref > preference && top >= score) return true;
    }
    return false;
}

void Greedy::note(const GreedyScore& s) {
    for (auto& [pref, top] : top_score_) {
        if (pref == s.preference) {
            top = std::max(top, s.score);
            return;
        }
    }
    top_score_.emplace_back(s.preference, s.score);
}

GreedyScore Greedy::evaluate(const Game& view, const Action& a, int me, double floor) {
    GreedyScore s;
    if (reinforcement(a)) {
        s.score = terminal(view, me);
        s.preference = reinforcement_preference(view, a, me);
        return s;
    }
    Game& pos = scratch(0, view);
    try {
        pos.push(a, nullptr);
    } catch (const HiddenError&) {
        s.score = terminal(view, me);
        s.preference = -1.0;
        return s;
    }
    s.score = gain(view, pos, me);
    budget_ = p_.rollout_pushes;
    double rest = 0;
    int end = pos.over() ? 0 : rest_of_turn(0, me, view.turn(), rest);
    s.score += rest;
    s.preference = a.kind == A_DEPLOY || a.kind == A_ADVANCE ? 1.0 : 0.0;
    if (s.score >= floor - EPS && !dominated(s.score, s.preference)) s.exposure = exposure(pool_[(size_t)end], me);
    return s;
}

void Greedy::evaluate_all(Game& g, std::vector<Action>& actions, std::vector<GreedyScore>& scores) {
    g.legal(actions);
    if (pool_.size() < 3) pool_.assign(3, g);
    set_root(g);
    int me = g.decider();
    scores.clear();
    top_score_.clear();  // every exposure wanted
    for (const Action& a : actions) scores.push_back(evaluate(g, a, me, -1e300));
}

Action Greedy::choose(Game& g, Rng& rng) {
    g.legal(legal_);
    if (legal_.empty()) throw std::invalid_argument("the greedy bot was asked to act, but the game has no legal action");
    if (legal_.size() == 1) return legal_[0];
    if (pool_.size() < 3) pool_.assign(3, g);
    set_root(g);
    int me = g.decider();
    // The reinforcements first: they are judged without a simulation, and their scores and
    // tie-breaks spare the exposure of the actions they beat. The order of judging changes no
    // score: each is of the action alone.
    scores_.assign(legal_.size(), GreedyScore{});
    top_score_.clear();
    double best = -1e300;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < legal_.size(); ++i) {
            if (reinforcement(legal_[i]) != (pass == 0)) continue;
            GreedyScore& s = scores_[i];
            s = evaluate(g, legal_[i], me, best);
            best = std::max(best, s.score);
            note(s);
        }
    }
    double best_pref = -1e300, best_exp = -1e300;
    for (const auto& s : scores_) {
        if (s.score < best - EPS) continue;
        if (s.preference > best_pref || (s.preference == best_pref && s.exposure > best_exp)) {
            best_pref = s.preference, best_exp = s.exposure;
        }
    }
    finalists_.clear();
    for (size_t i = 0; i < scores_.size(); ++i) {
        const auto& s = scores_[i];
        if (s.score >= best - EPS && s.preference == best_pref && s.exposure >= best_exp - EPS) finalists_.push_back((int)i);
    }
    return legal_[(size_t)finalists_[finalists_.size() == 1 ? 0 : rng.below((uint32_t)finalists_.size())]];
}

}  // namespace low

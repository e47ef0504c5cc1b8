#include "greedy.hpp"

#include <algorithm>
#include <cmath>

namespace low {

namespace {

constexpr double WIN = 100000.0;  // greedy.WIN
constexpr double EPS = 1e-9;

bool reinforcement(const Action& a) { return a.kind == A_DRAW || a.kind == A_RECALL || a.kind == A_PASS; }

// 8.2 (Game::threshold_result, winner only): 1 or 2, 0 for a draw, -1 while no threshold is reached.
// ``units_lost[p]``, ``commands_lost[p]``: the units and command units player p has lost
// (Game::commands_eliminated(3 - p)).
int threshold_winner(const Game& g, const int units_lost[3], const int commands_lost[3]) {
    const Variant& v = g.variant();
    int U = v.units_to_win, C = v.commands_to_win;
    int u[3] = {0, units_lost[2], units_lost[1]};
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

// The direction index (DX, DY) of each step (dx + 1, dy + 1) to a neighbour.
struct DirectionOf {
    int d[3][3] = {};
    DirectionOf() {
        for (int i = 0; i < 8; ++i) d[DX[i] + 1][DY[i] + 1] = i;
    }
    const int* operator[](int i) const { return d[i]; }
};
const DirectionOf DIRECTION_OF;

// The bits set in each byte.
struct Popcount8 {
    uint8_t n[256] = {};
    Popcount8() {
        for (int b = 1; b < 256; ++b) n[b] = (uint8_t)(n[b >> 1] + (b & 1));
    }
    int operator[](uint8_t b) const { return n[b]; }
};
const Popcount8 POPCOUNT8;

// GreedyBot._danger of a unit from its sum (see each_danger) and defence.
inline double danger(int r, int defence) { return r > defence ? 1.0 : 0.25 * r / (defence + 1); }

}  // namespace

void greedy_features(const float* raw, int n, float* out) {
    // Each relative to the decision's other actions; the constants are features.py's (WIN is
    // greedy.WIN, VALUE_SCALE and _EPS its own), tests/test_core_net.py holds the two equal.
    constexpr double VALUE_SCALE = 5.0, FEPS = 1e-6;
    std::fill(out, out + (size_t)n * GREEDY_FEATURES, 0.0f);
    if (n == 0) return;
    auto score = [&](int i) { return (double)raw[3 * i]; };
    auto preference = [&](int i) { return (double)raw[3 * i + 1]; };
    auto exposure = [&](int i) { return (double)raw[3 * i + 2]; };
    double best = -HUGE_VAL, top_exposure = -HUGE_VAL;
    for (int i = 0; i < n; ++i) best = std::max(best, score(i)), top_exposure = std::max(top_exposure, exposure(i));
    double best_pref = -HUGE_VAL;
    for (int i = 0; i < n; ++i) {
        if (score(i) >= best - FEPS) best_pref = std::max(best_pref, preference(i));
    }
    double best_exp = -HUGE_VAL;
    for (int i = 0; i < n; ++i) {
        if (score(i) >= best - FEPS && preference(i) == best_pref) best_exp = std::max(best_exp, exposure(i));
    }
    // The rank by score, best first, ties in id order (a stable sort of -score).
    thread_local std::vector<int> order;
    order.resize((size_t)n);
    for (int i = 0; i < n; ++i) order[(size_t)i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return -score(a) < -score(b); });
    auto clip = [](double v, double lo, double hi) { return (float)std::min(std::max(v, lo), hi); };
    for (int r = 0; r < n; ++r) out[(size_t)order[(size_t)r] * GREEDY_FEATURES + 9] = (float)((double)r / std::max(n - 1, 1));
    for (int i = 0; i < n; ++i) {
        float* f = out + (size_t)i * GREEDY_FEATURES;
        const double s = score(i);
        const bool win = s > WIN / 2, loss = s < -WIN / 2;
        const double plain = s - WIN * win + WIN * loss;
        const bool top = s >= best - FEPS;
        const bool tied = top && preference(i) == best_pref;
        const double below = std::abs(s - best) > WIN / 2 ? -3.0 * VALUE_SCALE : s - best;
        f[0] = win;
        f[1] = loss;
        f[2] = clip(plain / VALUE_SCALE, -3, 3);
        f[3] = clip(below / VALUE_SCALE, -3, 0);
        f[4] = top;
        f[5] = (float)(preference(i) / 3.0);
        f[6] = clip(exposure(i) / VALUE_SCALE, -3, 3);
        f[7] = clip((exposure(i) - top_exposure) / VALUE_SCALE, -3, 0);
        f[8] = tied && exposure(i) >= best_exp - FEPS;
        f[10] = (float)(1.0 / n);
    }
}

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

double Greedy::terminal(const Game& g, int me, int extra_card) const {
    // GreedyBot._terminal: WIN (or minus it) when the thresholds decide the game at the end of this turn.
    if (g.over()) return 0.0;
    // The lost piles only grow along a simulated line: the root's command units lost, plus the new ones.
    int units_lost[3] = {0, (int)g.lost(1).size(), (int)g.lost(2).size()};
    int commands_lost[3] = {0, root_commands_[1], root_commands_[2]};
    for (int p = 1; p <= 2; ++p) {
        const auto& lost = g.lost(p);
        for (size_t i = root_lost_[p]; i < lost.size(); ++i) commands_lost[p] += command_[(size_t)lost[i]];
    }
    if (extra_card >= 0) ++units_lost[me], commands_lost[me] += command_[(size_t)extra_card];
    int w = threshold_winner(g, units_lost, commands_lost);
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
    root_state_ = ROOT_UNKNOWN;
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
        f(i, danger(r, defence_[(size_t)u.card]));
    }
}

double Greedy::term(int card, int owner, int r, int me) const {
    // A unit's term of exposure(), as that sums it.
    double v = p_.values[(size_t)card] * danger(r, defence_[(size_t)card]);
    return owner == me ? -v : p_.enemy_weight * v;
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

void Greedy::make_totals(const Game& pos) {
    // Game::check's sums at pos: a unit that shot deals no melee damage.
    const auto& units = pos.units();
    shooters_ = false;
    for (const Unit& u : units) shooters_ |= (u.flags & SHOT) != 0;
    totals_.resize(units.size());
    doomed_at_.clear();
    for (size_t i = 0; i < units.size(); ++i) {
        const Unit& u = units[i];
        int total = u.shot_damage > 0 ? u.shot_damage : 0;
        for (int e = 0; e < u.n_attacks; ++e) {
            if (shooters_ && (units[(size_t)pos.unit_at(u.attack_sq[e])].flags & SHOT)) continue;
            total += u.attack_val[e];
        }
        totals_[i] = total;
        if (total > defence_[(size_t)u.card]) doomed_at_.push_back((int)i);
    }
    totals_ready_ = true;
    doomed_ready_ = false;
    ++totals_stamp_;
}

int Greedy::deploy_gain(const Game& pos, const Action& a, int me, double& g) {
    // predict() of the common deployment on the bordered mat: one that dooms no unit not doomed
    // at pos and whose unit survives, so that the doomed units are those of pos (their gain made
    // once per position); 1: g is its gain, 0: play it (a berserker may advance), -1: neither
    // (predict reckons it in full).
    const int owner = pos.to_move();
    const Kind& k = pos.cards().kinds[(size_t)owner][(size_t)a.card];
    const int x = sq_x(a.to), y = sq_y(a.to), sq = x * HEIGHT + y;
    const auto& units = pos.units();
    const uint64_t foes = pos.occupied(3 - owner);  // the enemy units' squares (bit x * 6 + y)
    for (int e = 0; e < k.n_attacks; ++e) {
        const int tx = x + DX[k.attack_dir[e]], ty = y + DY[k.attack_dir[e]];
        if (tx < 0 || tx >= WIDTH || ty < 0 || ty >= HEIGHT || !(foes >> (tx * HEIGHT + ty) & 1)) continue;
        const int wi = pos.unit_at_xy(tx, ty);
        const int total = totals_[(size_t)wi], defence = defence_[(size_t)units[(size_t)wi].card];
        if (total <= defence && total + k.attack_val[e] > defence) return -1;  // one more doomed
    }
    if (placed_stamp_[sq] != totals_stamp_) {
        // The attacks on a unit placed there: those of the enemy units beside it (not of one that shot).
        int total = 0;
        for (uint64_t near = NEIGHBOURS_ON_MAT[sq] & foes; near; near &= near - 1) {
            const int t = __builtin_ctzll(near), tx = t / HEIGHT, ty = t % HEIGHT;
            const Unit& w = units[(size_t)pos.unit_at_xy(tx, ty)];
            if (shooters_ && (w.flags & SHOT)) continue;
            total += pos.kind(w).attack_at[(DIRECTION_OF[tx - x + 1][ty - y + 1] + 4) % 8];
        }
        placed_at_[sq] = total, placed_stamp_[sq] = totals_stamp_;
    }
    if (placed_at_[sq] > defence_[(size_t)a.card]) return -1;  // its unit doomed
    if (doomed_at_.empty()) return 1;
    if (!doomed_ready_) {
        // GreedyBot._gain of pos's doomed units, summed as predict() sums a doomed list; and
        // whether a berserker stands beside one of them.
        doomed_list_.clear();
        berserker_by_doomed_ = false;
        for (int i : doomed_at_) {
            const Unit& u = units[(size_t)i];
            doomed_list_.push_back({u.sq, (int)u.owner, (int)u.card});
            for (int d = 0; d < 8; ++d) {
                const int wi = pos.unit_at_xy(sq_x(u.sq) + DX[d], sq_y(u.sq) + DY[d]);
                if (wi >= 0 && pos.kind(units[(size_t)wi]).berserker) berserker_by_doomed_ = true;
            }
        }
        std::sort(doomed_list_.begin(), doomed_list_.end(), [](const Doomed& l, const Doomed& r) { return l.sq < r.sq; });
        doomed_gain_ = 0;
        for (int p = 1; p <= 2; ++p) {
            for (const auto& t : doomed_list_) {
                if (t.owner != p) continue;
                const double v = p_.values[(size_t)t.card];
                doomed_gain_ += p == me ? -v : v;
            }
        }
        doomed_ready_ = true;
    }
    if (pos.variant().intermediate && (k.berserker || berserker_by_doomed_)) return 0;
    g = doomed_gain_;
    return 1;
}

bool Greedy::predict(const Game& pos, const Action& a, int me, double& g) {
    // The gain of pushing ``a`` at pos without playing it, where that is sure: a declared shot
    // runs no check (Game::push); a deployment, a fired shot or a move runs one, whose doomed
    // units follow from the sums at pos and the few the action changes (the units the new or
    // moved unit attacks, itself, those its old square leaves, the shot's target and the units
    // the shooter no longer strikes in melee). Where a berserker stands by a doomed unit an
    // advance may follow: it is played.
    g = 0;
    if (a.kind == A_SHOOT && pos.phase() == PRE) return true;
    if (a.kind != A_DEPLOY && a.kind != A_SHOOT && a.kind != A_MOVE) return false;
    if (!totals_ready_) make_totals(pos);
    if (a.kind == A_DEPLOY && pos.variant().bordered) {
        const int sure = deploy_gain(pos, a, me, g);
        if (sure >= 0) return sure == 1;
    }
    const auto& units = pos.units();
    const size_t n = units.size();
    if (delta_.size() < n) delta_.resize(n, 0), seen_.resize(n, 0);
    changed_.clear();
    auto add = [&](int i, int d) {
        delta_[(size_t)i] += d;
        changed_.push_back(i);
    };
    // Takes back the attacks that ``u`` (which stops attacking from its square) makes on its neighbours.
    auto drop_attacks_of = [&](const Unit& u) {
        for (int d = 0; d < 8; ++d) {
            int wi = pos.unit_at_xy(sq_x(u.sq) + DX[d], sq_y(u.sq) + DY[d]);
            if (wi < 0) continue;
            const Unit& w = units[(size_t)wi];
            for (int e = 0; e < w.n_attacks; ++e) {
                if (w.attack_sq[e] == u.sq) add(wi, -w.attack_val[e]);
            }
        }
    };
    // The unit placed (a deployment or a move): its card, owner, square and sum; -1 for none.
    int placed_card = -1, placed_owner = 0, placed_total = 0, moved = -1;
    Sq placed_sq = a.to;
    if (a.kind == A_SHOOT) {
        int ui = pos.unit_at(a.from), ti = pos.unit_at(a.to);
        const Unit& u = units[(size_t)ui];
        if (!(shooters_ && (u.flags & SHOT))) drop_attacks_of(u);  // its melee damage counted, and no more
        add(ti, pos.kind(u).damage);
    } else {
        bool counted = true;
        if (a.kind == A_DEPLOY) {
            placed_card = a.card, placed_owner = pos.to_move();
        } else {
            moved = pos.unit_at(a.from);
            const Unit& u = units[(size_t)moved];
            placed_card = u.card, placed_owner = u.owner;
            placed_total = u.shot_damage > 0 ? u.shot_damage : 0;
            counted = !(shooters_ && (u.flags & SHOT));
            if (counted) drop_attacks_of(u);  // the attacks from its old square go
        }
        const Kind& k = pos.cards().kinds[(size_t)placed_owner][(size_t)placed_card];
        const int x = sq_x(a.to), y = sq_y(a.to);
        if (counted) {
            for (int e = 0; e < k.n_attacks; ++e) {
                int wi = pos.unit_at_xy(x + DX[k.attack_dir[e]], y + DY[k.attack_dir[e]]);
                if (wi >= 0 && units[(size_t)wi].owner != placed_owner) add(wi, k.attack_val[e]);
            }
        }
        for (int d = 0; d < 8; ++d) {
            int wi = pos.unit_at_xy(x + DX[d], y + DY[d]);
            if (wi < 0) continue;
            const Unit& w = units[(size_t)wi];
            if (w.owner == placed_owner || (shooters_ && (w.flags & SHOT))) continue;
            placed_total += pos.kind(w).attack_at[(d + 4) % 8];
        }
    }
    // The doomed units: (square, owner, card).
    // Only a unit doomed at pos or one whose sum changes may be (each looked at once: seen_).
    doomed_list_.clear();
    auto look = [&](int i) {
        if (i == moved || seen_[(size_t)i]) return;
        seen_[(size_t)i] = 1;
        const Unit& u = units[(size_t)i];
        if (totals_[(size_t)i] + delta_[(size_t)i] > defence_[(size_t)u.card]) doomed_list_.push_back({u.sq, (int)u.owner, (int)u.card});
    };
    for (int i : doomed_at_) look(i);
    for (int i : changed_) look(i);
    for (int i : doomed_at_) seen_[(size_t)i] = 0;
    for (int i : changed_) delta_[(size_t)i] = 0, seen_[(size_t)i] = 0;
    if (placed_card >= 0 && placed_total > defence_[(size_t)placed_card])
        doomed_list_.push_back({placed_sq, placed_owner, placed_card});
    if (doomed_list_.empty()) return true;
    if (pos.variant().intermediate) {
        // A berserker beside a doomed unit may advance: play it.
        if (placed_card >= 0 && pos.cards().kinds[(size_t)placed_owner][(size_t)placed_card].berserker) return false;
        for (const auto& t : doomed_list_) {
            for (int d = 0; d < 8; ++d) {
                int wi = pos.unit_at_xy(sq_x(t.sq) + DX[d], sq_y(t.sq) + DY[d]);
                if (wi >= 0 && pos.kind(units[(size_t)wi]).berserker) return false;
            }
        }
    }
    // GreedyBot._gain as gain() sums it: the lost piles in turn, each in the check's order (by square).
    std::sort(doomed_list_.begin(), doomed_list_.end(), [](const Doomed& l, const Doomed& r) { return l.sq < r.sq; });
    for (int p = 1; p <= 2; ++p) {
        for (const auto& t : doomed_list_) {
            if (t.owner != p) continue;
            double v = p_.values[(size_t)t.card];
            g += p == me ? -v : v;
        }
    }
    return true;
}

int Greedy::rest_of_turn(int at, int me, int turn, double& total) {
    // GreedyBot._rest_of_turn: follow the turn greedily from pool_[at]; adds the gain on the way,
    // plus the thresholds' verdict where the line stops, to ``total``, and returns the pool index
    // of the position where it stops (indices move, not games: a game is costly to swap). An
    // option whose gain is sure (predict) is played only to go on with it.
    int child = (at + 1) % 3, best = (at + 2) % 3;
    while (true) {
        Game& pos = pool_[(size_t)at];
        if (pos.over()) return at;
        int decider = pos.decider();
        if (pos.turn() != turn || (decider != me && pos.phase() != ADVANCE)) break;
        if (pos.phase() == POST && !may_shoot_or_move(pos)) break;  // only the reinforcement is left
        if (recording_) note_step(pos, me);
        try {
            pos.legal(options_, false);  // no reinforcement: it would end the turn
        } catch (const HiddenError&) {
            line_valid_ = false;
            break;
        }
        if (options_.empty() || budget_ <= 0) break;
        bool optional = pos.phase() == POST;
        bool maximise = decider == me;
        bool found = false, best_played = false;
        double best_key = 0, best_gain = 0;
        int best_deploy = 0;
        size_t best_option = 0;
        totals_ready_ = false;
        for (size_t o = 0; o < options_.size(); ++o) {
            const Action& a = options_[o];
            if (budget_ <= 0) break;
            --budget_;
            double g = 0;
            bool played = !predict(pos, a, me, g);
            if (recording_) {
                // The reference's line: judged by predictions alone; the units whose sums they change.
                if (played || !totals_ready_) {
                    line_valid_ = false;
                } else {
                    const auto& units = pos.units();
                    auto bit = [&](int i) { return 1ULL << (sq_x(units[(size_t)i].sq) * HEIGHT + sq_y(units[(size_t)i].sq)); };
                    for (int i : changed_) recording_->changed |= bit(i);
                    for (int i : doomed_at_) recording_->changed |= bit(i);
                }
            }
            if (played) {
                Game& next = pool_[(size_t)child];
                next = pos;
                try {
                    next.push(a, nullptr);
                } catch (const HiddenError&) {
                    continue;
                }
                g = gain(pos, next, me);
            }
            double key = maximise ? g : -g;
            int deploy = a.kind == A_DEPLOY;  // before the deployment, a deploy beats a shot that gains as much
            if (!found || key > best_key || (key == best_key && deploy > best_deploy)) {
                found = true, best_key = key, best_gain = g, best_deploy = deploy;
                best_option = o, best_played = played;
                if (played) std::swap(child, best);
            }
        }
        if (!found) break;
        if (optional && maximise && best_gain <= EPS) break;  // nothing more to gain: the reinforcement comes next
        if (!best_played) {
            Game& next = pool_[(size_t)best];
            next = pos;
            next.push(options_[best_option], nullptr);
        }
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

int Greedy::quiet_root(const Game& g, int me) {
    // What ``g`` (the position being decided) lets its deployments be judged by: ROOT_QUIET
    // (deploy_shortcut; what it needs of g made: each unit's margin before the check, root_),
    // ROOT_LINE (an option after any deployment may eliminate: its deployments by their lines) or ROOT_BUSY (play each).
    if (!g.variant().bordered || g.phase() != PRE || g.advance() || g.over() || g.to_move() != me) return ROOT_BUSY;
    const auto& units = g.units();
    size_t n = units.size();
    // Game::check's sums: a unit that shot deals no melee damage.
    bool shooters = false;
    for (const Unit& u : units) shooters |= (u.flags & SHOT) != 0;
    margin_.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const Unit& u = units[i];
        int total = u.shot_damage > 0 ? u.shot_damage : 0;
        for (int e = 0; e < u.n_attacks; ++e) {
            if (shooters && (units[(size_t)g.unit_at(u.attack_sq[e])].flags & SHOT)) continue;
            total += u.attack_val[e];
        }
        margin_[i] = defence_[(size_t)u.card] - total;
        if (margin_[i] < 0) return ROOT_BUSY;  // the deployment's check eliminates it whatever is deployed
    }
    root_moves_ = may_shoot_or_move(g);  // the simulated turn goes on past the deployment
    if (root_moves_ && !post_options(g, me, shooters)) {
        // The root's SquareInfo (for local_quiet) and no reference line yet.
        root_.ghost = -1;
        root_.occupied = g.occupied(1) | g.occupied(2);
        for (auto& q : root_.squares) q.known = false;
        n_lines_ = 0;
        return ROOT_LINE;
    }
    added_.assign(n, 0);
    make_base(g, -1, me, root_);
    root_terminal_ = terminal(g, me);
    n_lines_ = 0;
    return ROOT_QUIET;
}

void Greedy::make_base(const Game& g, int ghost, int me, Base& b) {
    // each_danger's sums, exposure's terms and its running total at g, without the ghost unit:
    // its square empty, its attacks on its enemies gone (each_danger, as exposure() reads them).
    const auto& units = g.units();
    const size_t n = units.size();
    const Sq ghost_sq = ghost >= 0 ? units[(size_t)ghost].sq : 0;
    b.ghost = ghost;
    b.occupied = g.occupied(1) | g.occupied(2);
    if (ghost >= 0) b.occupied &= ~(1ULL << (sq_x(ghost_sq) * HEIGHT + sq_y(ghost_sq)));
    b.engaged.assign(n, 0);
    b.r0.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const Unit& u = units[i];
        int engaged = 0, sum = 0;
        for (int e = 0; e < u.n_attacks; ++e) {
            if (ghost >= 0 && u.attack_sq[e] == ghost_sq) continue;
            ++engaged, sum += u.attack_val[e];
        }
        b.engaged[i] = engaged;
        b.r0[i] = sum;
    }
    std::fill(std::begin(b.reach_at), std::end(b.reach_at), 0);
    for (size_t i = 0; i < n; ++i) {
        const Unit& u = units[i];
        if ((int)i == ghost || !ranged_[(size_t)u.card] || b.engaged[i]) continue;
        const Kind& k = g.kind(u);
        int x = sq_x(u.sq), y = sq_y(u.sq);
        for (auto [dx, dy] : k.targets) {
            int tx = x + dx, ty = y + dy;
            int wi = g.unit_at_xy(tx, ty);
            if (wi >= 0 && wi != ghost && units[(size_t)wi].owner != u.owner) b.r0[(size_t)wi] += k.damage;
            if (u.owner != me && tx >= 0 && tx < WIDTH && ty >= 0 && ty < HEIGHT) b.reach_at[tx * HEIGHT + ty] += k.damage;
        }
    }
    b.c0.resize(n);
    b.prefix.resize(n + 1);
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
        const Unit& u = units[i];
        b.prefix[i] = total;
        if ((int)i == ghost) {
            b.c0[i] = 0;
            continue;
        }
        // each_danger's sum: the attacks on it, the free ranged units' reach, an empty square beside it.
        int r = b.r0[i];
        if (NEIGHBOURS_ON_MAT[sq_x(u.sq) * HEIGHT + sq_y(u.sq)] & ~b.occupied) r += p_.fresh_arrow;
        b.r0[i] = r;
        b.c0[i] = term(u.card, u.owner, r, me);
        total += b.c0[i];
    }
    b.prefix[n] = total;
    b.rr = b.r0;
    for (auto& q : b.squares) q.known = false;
}

bool Greedy::post_options(const Game& g, int me, bool shooters) {
    // The shots and moves the mover may have after a deployment (Game::shots, Game::moves: the
    // deployment changes none of its other units' flags or engagements), with what predict() asks
    // of each there; false when one of them may eliminate whatever is deployed.
    const auto& units = g.units();
    option_to_.clear(), option_end_.clear(), limits_.clear();
    for (const Unit& u : units) {
        if (u.owner != me) continue;
        const Kind& k = g.kind(u);
        const int x = sq_x(u.sq), y = sq_y(u.sq);
        if (!k.targets.empty() && g.turn() > 2 && !(u.flags & (SHOT | TOOK_PART | ENGAGED_AT_START)) &&
            !((u.flags & DEPLOYED) && !(u.flags & SUPPORTED)) && u.n_attacks == 0) {
            for (auto [dx, dy] : k.targets) {
                int ti = g.unit_at_xy(x + dx, y + dy);
                if (ti < 0 || units[(size_t)ti].owner == me) continue;
                // A fired shot: the target's sum grows by the damage, less the shooter's own melee.
                const Unit& t = units[(size_t)ti];
                int limit = margin_[(size_t)ti] - k.damage;
                for (int e = 0; e < t.n_attacks; ++e) {
                    if (t.attack_sq[e] == u.sq) limit += t.attack_val[e];
                }
                if (limit < 0) return false;
                limits_.emplace_back(ti, limit);
                option_to_.push_back(-1), option_end_.push_back((int)limits_.size());
            }
        }
        if ((u.flags & MOVED) || u.n_attacks) continue;
        const bool counted = !(shooters && (u.flags & SHOT));
        for (int m = 0; m < k.n_moves; ++m) {
            const int bx = x + DX[k.move_dir[m]], by = y + DY[k.move_dir[m]];
            if (bx < 0 || bx >= WIDTH || by < 0 || by >= HEIGHT || g.unit_at_xy(bx, by) >= 0) continue;
            // A move: the enemies it attacks there, and itself.
            if (counted) {
                for (int e = 0; e < k.n_attacks; ++e) {
                    int wi = g.unit_at_xy(bx + DX[k.attack_dir[e]], by + DY[k.attack_dir[e]]);
                    if (wi < 0 || units[(size_t)wi].owner == me) continue;
                    int limit = margin_[(size_t)wi] - k.attack_val[e];
                    if (limit < 0) return false;
                    limits_.emplace_back(wi, limit);
                }
            }
            int total = u.shot_damage > 0 ? u.shot_damage : 0;
            for (int d = 0; d < 8; ++d) {
                int wi = g.unit_at_xy(bx + DX[d], by + DY[d]);
                if (wi < 0) continue;
                const Unit& w = units[(size_t)wi];
                if (w.owner == me || (shooters && (w.flags & SHOT))) continue;
                total += g.kind(w).attack_at[(d + 4) % 8];
            }
            if (total > k.defence) return false;
            option_to_.push_back(bx * HEIGHT + by), option_end_.push_back((int)limits_.size());
        }
    }
    return true;
}

const Greedy::SquareInfo& Greedy::make_square_info(const Game& g, int sq, int me, Base& b) {
    SquareInfo& q = b.squares[sq];
    q = SquareInfo{};
    q.known = true;
    const auto& units = g.units();
    const int x = sq / HEIGHT, y = sq % HEIGHT;
    const uint64_t before = b.occupied, after = before | 1ULL << sq;
    q.open = (NEIGHBOURS_ON_MAT[sq] & ~after) != 0;
    // The units beside it: the occupied squares among its neighbours (the ghost's is not).
    for (uint64_t near = NEIGHBOURS_ON_MAT[sq] & before; near; near &= near - 1) {
        const int t = __builtin_ctzll(near), tx = t / HEIGHT, ty = t % HEIGHT;
        const int d = DIRECTION_OF[tx - x + 1][ty - y + 1];
        const int wi = g.unit_at_xy(tx, ty);
        if (wi < 0) continue;  // (the occupied squares are the board's: none is empty)
        const Unit& w = units[(size_t)wi];
        const uint64_t around = NEIGHBOURS_ON_MAT[t];
        if ((around & ~before) && !(around & ~after)) q.closed[q.n_closed++] = (int8_t)wi;
        if (w.owner == me) continue;
        q.enemy_dirs |= (uint8_t)(1 << d), q.next[d] = (int16_t)wi;
        int value = g.kind(w).attack_at[(d + 4) % 8];
        if (!value) continue;
        ++q.n_in, q.in_all += value;
        if (!(w.flags & SHOT)) q.in_check += value;
    }
    q.reach = b.reach_at[sq];
    return q;
}

inline int Greedy::local_quiet(const Game& g, const Action& a, int me, Local& l) {
    // What the deployment ``a`` at the root g does where it stands (LOCAL_QUIET, LOCAL_LOST,
    // LOCAL_KILL, LOCAL_BUSY: see Local), from the margins of the units it attacks and the
    // attacks on its square.
    const Kind& k = g.cards().kinds[(size_t)me][(size_t)a.card];
    const int x = sq_x(a.to), y = sq_y(a.to);
    l.sq = x * HEIGHT + y;
    // The enemy units it attacks (Game::place). Where its card attacks once per direction (as
    // every card so far), its directions with an enemy tell them.
    if (k.n_attacks != POPCOUNT8[k.dirmask]) return LOCAL_BUSY;
    const SquareInfo& q = square_info(g, l.sq, me, root_);
    l.q = &q;
    l.n_hit = 0, l.hit_squares = 0, l.killed = 0;
    const auto& units = g.units();
    for (unsigned dirs = k.dirmask & q.enemy_dirs; dirs; dirs &= dirs - 1) {
        int d = __builtin_ctz(dirs);
        int wi = q.next[d];
        const Sq wsq = units[(size_t)wi].sq;
        const uint64_t bit = 1ULL << (sq_x(wsq) * HEIGHT + sq_y(wsq));
        if (k.attack_at[d] > margin_[(size_t)wi]) {
            l.killed |= bit;
            continue;
        }
        l.hit[l.n_hit] = wi, l.hit_val[l.n_hit] = k.attack_at[d], ++l.n_hit;
        l.hit_squares |= bit;
    }
    // The attacks on it (those of a unit that shot do not count there).
    if (q.in_check > k.defence) return l.killed ? LOCAL_BUSY : LOCAL_LOST;
    // may_shoot_or_move of the new unit: it may do neither.
    const size_t c = (size_t)a.card;
    if (moves_[c]) return LOCAL_BUSY;
    if (l.killed) return LOCAL_KILL;  // it took part in the check: no shot for it this turn
    l.free_ranged = ranged_[c] && q.n_in == 0;
    l.n_shot = 0;
    bool may_eliminate = false;
    if (l.free_ranged && g.turn() > 2 && (NEIGHBOURS_ON_MAT[l.sq] & g.occupied(me))) {
        // It may shoot at once (its targets, in the order Game::shots lists them): a quiet option
        // where its damage stays within the target's margin (a shot takes back its melee damage;
        // predict() sums it so).
        for (auto [dx, dy] : k.targets) {
            int wi = g.unit_at_xy(x + dx, y + dy);
            if (wi < 0 || units[(size_t)wi].owner == me) continue;
            if (l.n_shot == 16) return LOCAL_BUSY;  // more targets than a Local holds
            l.shot[l.n_shot++] = wi;
            may_eliminate |= k.damage > margin_[(size_t)wi];
        }
    }
    return may_eliminate ? LOCAL_SHOOTS : LOCAL_QUIET;
}

int Greedy::deploy_shortcut(const Game& g, const Action& a, int me, double floor, GreedyScore& s) {
    // evaluate() of the deployment ``a`` at a quiet or line root (quiet_root), without playing it
    // where that is sure:
    // - at a quiet root, quiet (local_quiet: its own shots too) with quiet options after it:
    //   rest_of_turn stops at once; the position it makes is g with the new unit last in the
    //   units' order;
    // - at a quiet root, its unit alone eliminated in its check (and no enemy berserker attacking
    //   it to advance): the position is g again (the unit placed, then removed from the end of
    //   the order), its card lost, and g's options, all quiet, are not taken;
    // - else, quiet or eliminating enemy units alone: from the line of its set (whatever it
    //   attacks) or of its very attacks and shots (Line), where it qualifies.
    Local l;
    const int local = local_quiet(g, a, me, l);
    const Kind& k = g.cards().kinds[(size_t)me][(size_t)a.card];
    if (root_state_ == ROOT_QUIET && local == LOCAL_LOST) {
        if (advance_on(g, l)) return SHORT_PLAY;
        s.score = -p_.values[(size_t)a.card];  // gain(): the unit lost
        s.score += terminal(g, me, a.card);
        s.preference = 1.0;
        if (s.score >= floor - EPS && !dominated(s.score, s.preference)) s.exposure = root_.prefix[g.units().size()];
        return SHORT_DONE;
    }
    bool any_attacks = true;  // the line of its set, whatever enemies it attacks, may judge it
    if (root_state_ == ROOT_QUIET && local == LOCAL_QUIET) {
        bool quiet_after = true;
        if (root_moves_) {
            // The options after it: each must be quiet with the damage it adds.
            for (int h = 0; h < l.n_hit; ++h) added_[(size_t)l.hit[h]] = l.hit_val[h];
            size_t begin = 0;
            for (size_t o = 0; o < option_to_.size() && quiet_after; ++o) {
                size_t end = (size_t)option_end_[o];
                if (option_to_[o] != l.sq) {  // a move to its square is gone
                    for (size_t i = begin; i < end; ++i) {
                        if (added_[(size_t)limits_[i].first] > limits_[i].second) quiet_after = false;
                    }
                }
                begin = end;
            }
            for (int h = 0; h < l.n_hit; ++h) added_[(size_t)l.hit[h]] = 0;
        }
        if (quiet_after) {
            s.score = root_terminal_;
            s.preference = 1.0;
            if (s.score >= floor - EPS && !dominated(s.score, s.preference))
                s.exposure = deploy_exposure(g, a, me, root_, *l.q, l);
            return SHORT_DONE;
        }
        any_attacks = false;  // its attacks let an option eliminate: only a line of the same attacks
    }
    if (local == LOCAL_QUIET || local == LOCAL_SHOOTS) {
        // A berserker may advance; a unit that may shoot changes the line: only one free to shoot
        // from the start (its targets then part of its attacks), not one its attackers' fall frees.
        if (k.berserker) return SHORT_PLAY;
        if (l.n_shot) {
            any_attacks = false;
        } else if (may_ever_shoot(g, a, me, l)) {
            return SHORT_PLAY;
        }
    } else if (local != LOCAL_KILL || advance_near(g, l.killed, a)) {
        return SHORT_PLAY;
    }
    if (any_attacks) {
        const int how = from_line(line_of(l.killed, nullptr, 0), g, a, me, floor, s, l);
        if (how != SHORT_PLAY) return how;
    }
    return from_line(line_of(l.killed, &l, k.damage), g, a, me, floor, s, l);
}

int Greedy::from_line(Line& line, const Game& g, const Action& a, int me, double floor, GreedyScore& s, const Local& l) {
    // The deployment ``a`` (local_quiet: l) judged from ``line``, or played as its reference.
    if (line.state == Line::FAILED) return SHORT_PLAY;
    if (line.state == Line::NONE) {
        // The reference of a line of any attacks attacks no enemy that survives: nothing the line
        // does can be in its way there.
        if (!line.exact && l.hit_squares) return SHORT_PLAY;
        recording_ = &line;
        return SHORT_RECORD;
    }
    // Out of the line's way: no move might go to its square, no option changes the sums of the
    // enemies it attacks (or it attacks those of the reference, as the reference does).
    if ((line.moves >> l.sq & 1) || (!line.exact && (l.hit_squares & line.changed))) return SHORT_PLAY;
    s.score = line.score;
    s.preference = 1.0;
    if (s.score >= floor - EPS && !dominated(s.score, s.preference)) {
        const Game& end = *line.end;
        if (!line.base_ready) make_base(end, end.unit_at(line.reference), me, line.base), line.base_ready = true;
        const SquareInfo& q = square_info(end, l.sq, me, line.base);
        // Its enemies there (those of the root that survive: none falls along the line).
        const Kind& k = g.cards().kinds[(size_t)me][(size_t)a.card];
        Local e;
        e.sq = l.sq;
        e.free_ranged = ranged_[(size_t)a.card] && q.n_in == 0;
        for (unsigned dirs = k.dirmask & q.enemy_dirs; dirs; dirs &= dirs - 1) {
            int d = __builtin_ctz(dirs);
            e.hit[e.n_hit] = q.next[d], e.hit_val[e.n_hit] = k.attack_at[d], ++e.n_hit;
        }
        s.exposure = deploy_exposure(end, a, me, line.base, q, e);
    }
    return SHORT_DONE;
}

double Greedy::deploy_exposure(const Game& g, const Action& a, int me, Base& b, const SquareInfo& q, const Local& l) {
    // exposure() of the position the deployment makes from b: b's running total up to the first
    // unit whose sum changes (or the new unit's slot), then term by term. ``l``: its hits in g.
    const auto& units = g.units();
    const Kind& k = g.cards().kinds[(size_t)me][(size_t)a.card];
    const int x = sq_x(a.to), y = sq_y(a.to);
    touched_.clear();
    auto add = [&](int i, int delta) {
        b.rr[(size_t)i] += delta;
        touched_.push_back(i);
    };
    int reach_new = q.reach;
    for (int h = 0; h < l.n_hit; ++h) {
        const Unit& w = units[(size_t)l.hit[h]];
        add(l.hit[h], l.hit_val[h]);
        if (!ranged_[(size_t)w.card] || b.engaged[(size_t)l.hit[h]]) continue;
        // An enemy ranged unit engaged now reaches nothing any more.
        const Kind& wk = g.kind(w);
        int wx = sq_x(w.sq), wy = sq_y(w.sq);
        for (auto [dx, dy] : wk.targets) {
            int tx = wx + dx, ty = wy + dy;
            if (tx == x && ty == y) {
                reach_new -= wk.damage;
                continue;
            }
            int ti = g.unit_at_xy(tx, ty);
            if (ti >= 0 && ti != b.ghost && units[(size_t)ti].owner != w.owner) add(ti, -wk.damage);
        }
    }
    if (l.free_ranged) {
        for (auto [dx, dy] : k.targets) {
            int ti = g.unit_at_xy(x + dx, y + dy);
            if (ti >= 0 && ti != b.ghost && units[(size_t)ti].owner != me) add(ti, k.damage);
        }
    }
    for (int j = 0; j < q.n_closed; ++j) add(q.closed[j], -p_.fresh_arrow);
    const size_t n = units.size();
    const size_t slot = b.ghost >= 0 ? (size_t)b.ghost : n;  // where the new unit stands in the order
    const int r_new = reach_new + q.in_all + (q.open ? p_.fresh_arrow : 0);
    size_t first = slot;
    for (int i : touched_) first = std::min(first, (size_t)i);
    const int* rr = b.rr.data();
    const int* r0 = b.r0.data();
    const double* c0 = b.c0.data();
    auto unit_term = [&](size_t i) { return rr[i] == r0[i] ? c0[i] : term(units[i].card, units[i].owner, rr[i], me); };
    double total = b.prefix[first];
    for (size_t i = first; i < slot; ++i) total += unit_term(i);
    total += term(a.card, me, r_new, me);
    for (size_t i = slot + 1; i < n; ++i) total += unit_term(i);
    for (int i : touched_) b.rr[(size_t)i] = b.r0[(size_t)i];
    return total;
}

bool Greedy::may_ever_shoot(const Game& g, const Action& a, int me, const Local& l) const {
    // Whether the unit ``a`` deploys (local_quiet: it cannot shoot now) might shoot later in the
    // turn: a ranged unit deployed beside one of the mover's, with an enemy in its target grid,
    // once the enemies engaging it fall (Game::can_shoot: its SUPPORTED flag is set at deployment).
    const size_t c = (size_t)a.card;
    if (!ranged_[c] || g.turn() <= 2 || !(NEIGHBOURS_ON_MAT[l.sq] & g.occupied(me))) return false;
    const Kind& k = g.cards().kinds[(size_t)me][c];
    const int x = sq_x(a.to), y = sq_y(a.to);
    for (auto [dx, dy] : k.targets) {
        int wi = g.unit_at_xy(x + dx, y + dy);
        if (wi >= 0 && g.units()[(size_t)wi].owner != me) return true;
    }
    return false;
}

bool Greedy::advance_near(const Game& g, uint64_t killed, const Action& a) const {
    // Under the intermediate rules, whether a berserker might advance after the deployment's
    // check (Game::check: an attacker of a unit it eliminates): the one deployed, or one that
    // attacks a unit of ``killed`` (the deployment adds no attack on them but its own).
    if (!g.variant().intermediate) return false;
    if (g.cards().kinds[(size_t)g.to_move()][(size_t)a.card].berserker) return true;
    const auto& units = g.units();
    for (uint64_t k = killed; k; k &= k - 1) {
        const int sq = __builtin_ctzll(k);
        const Unit& u = units[(size_t)g.unit_at_xy(sq / HEIGHT, sq % HEIGHT)];
        for (int e = 0; e < u.n_attacks; ++e) {
            if (g.kind(units[(size_t)g.unit_at(u.attack_sq[e])]).berserker) return true;
        }
    }
    return false;
}

bool Greedy::advance_on(const Game& g, const Local& l) const {
    // Under the intermediate rules, whether a berserker might advance after a check that
    // eliminates the deployed unit alone: an enemy one that attacks its square.
    if (!g.variant().intermediate) return false;
    const auto& units = g.units();
    for (unsigned dirs = l.q->enemy_dirs; dirs; dirs &= dirs - 1) {
        const int d = __builtin_ctz(dirs);
        const Kind& w = g.kind(units[(size_t)l.q->next[d]]);
        if (w.berserker && w.attack_at[(d + 4) % 8]) return true;
    }
    return false;
}

Greedy::Line& Greedy::line_of(uint64_t killed, const Local* attacks, int damage) {
    // The root's line of the deployments that eliminate ``killed`` and, where ``attacks`` is
    // given, attack the same surviving enemies with the same values (in order of the units) and
    // may shoot at the same targets (in the order listed) with the same ``damage``.
    std::pair<int, int> key[24];
    int n = 0;
    if (attacks) {
        for (int h = 0; h < attacks->n_hit; ++h) key[n++] = {attacks->hit[h], attacks->hit_val[h]};
        std::sort(key, key + n);
        for (int t = 0; t < attacks->n_shot; ++t) key[n++] = {-1 - attacks->shot[t], damage};
    }
    for (size_t i = 0; i < n_lines_; ++i) {
        Line& line = lines_[i];
        if (line.killed != killed || line.exact != (attacks != nullptr)) continue;
        if (attacks && (line.n_attacks != n || !std::equal(key, key + n, line.attacks))) continue;
        return line;
    }
    if (n_lines_ == lines_.size()) lines_.emplace_back();
    Line& line = lines_[n_lines_++];
    line.killed = killed, line.exact = attacks != nullptr, line.state = Line::NONE, line.tries = 0;
    line.n_attacks = n;
    std::copy(key, key + n, line.attacks);
    return line;
}

void Greedy::note_step(const Game& pos, int me) {
    // rest_of_turn at a step of a reference's line (before its options are judged): the squares
    // a move of the mover might reach from where its units stand now, whatever their flags.
    if (pos.phase() != POST) line_valid_ = false;  // an advance or another phase: not followed
    for (const Unit& u : pos.units()) {
        if (u.owner != me || !moves_[(size_t)u.card]) continue;
        const Kind& k = pos.kind(u);
        const int x = sq_x(u.sq), y = sq_y(u.sq);
        for (int m = 0; m < k.n_moves; ++m) {
            int tx = x + DX[k.move_dir[m]], ty = y + DY[k.move_dir[m]];
            if (tx >= 0 && tx < WIDTH && ty >= 0 && ty < HEIGHT) recording_->moves |= 1ULL << (tx * HEIGHT + ty);
        }
    }
}

void Greedy::end_reference(Line& line, const Game& end, const Action& a, const GreedyScore& s) {
    // The reference deployment ``a`` of ``line`` was played and its line followed to ``end``:
    // kept if the line was followed by predictions alone and no move of it might go to the
    // reference's square (and the reference unit stands where it was deployed); else another
    // deployment may be the reference, once.
    const int sq = sq_x(a.to) * HEIGHT + sq_y(a.to);
    if (!line_valid_ || end.over() || (line.moves >> sq & 1) || end.unit_at(a.to) < 0) {
        line.state = ++line.tries >= 2 ? Line::FAILED : Line::NONE;
        return;
    }
    if (line.end) {
        *line.end = end;
    } else {
        line.end.emplace(end);
    }
    line.reference = a.to;
    line.base_ready = false;  // made at the first exposure wanted from it
    line.score = s.score;
    line.state = Line::READY;
}

GreedyScore Greedy::evaluate(const Game& view, const Action& a, int me, double floor) {
    GreedyScore s;
    Line* reference = nullptr;  // the line this deployment is played as the reference of
    if (a.kind == A_DEPLOY && p_.shortcuts) {
        if (root_state_ == ROOT_UNKNOWN) root_state_ = quiet_root(view, me);
        if (root_state_ == ROOT_QUIET || root_state_ == ROOT_LINE) {
            int how = deploy_shortcut(view, a, me, floor, s);
            if (how == SHORT_DONE) return s;
            if (how == SHORT_RECORD) reference = recording_;
            recording_ = nullptr;
        }
    }
    if (reinforcement(a)) {
        s.score = terminal(view, me);
        s.preference = reinforcement_preference(view, a, me);
        return s;
    }
    if (pool_.size() < 3) pool_.assign(3, view);  // made at the first simulation
    Game& pos = scratch(0, view);
    try {
        pos.push(a, nullptr);
    } catch (const HiddenError&) {
        s.score = terminal(view, me);
        s.preference = -1.0;
        if (reference) line_valid_ = false, end_reference(*reference, view, a, s);
        return s;
    }
    s.score = gain(view, pos, me);
    budget_ = p_.rollout_pushes;
    double rest = 0;
    if (reference) recording_ = reference, line_valid_ = true, reference->moves = reference->changed = 0;
    int end = pos.over() ? 0 : rest_of_turn(0, me, view.turn(), rest);
    recording_ = nullptr;
    s.score += rest;
    s.preference = a.kind == A_DEPLOY || a.kind == A_ADVANCE ? 1.0 : 0.0;
    if (s.score >= floor - EPS && !dominated(s.score, s.preference)) s.exposure = exposure(pool_[(size_t)end], me);
    if (reference) end_reference(*reference, pool_[(size_t)end], a, s);
    return s;
}

void Greedy::evaluate_all(Game& g, std::vector<Action>& actions, std::vector<GreedyScore>& scores) {
    g.legal(actions);
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

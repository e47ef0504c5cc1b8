// The rules: a line-by-line counterpart of lordsofwar/rules/engine.py (see engine.hpp).
#include "engine.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>

namespace low {

namespace {

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

// --- cards (position.UnitKind) ---------------------------------------------------------------

CardTable::CardTable(const std::vector<CardSpec>& specs) {
    for (int owner = 1; owner <= 2; ++owner) kinds[owner].reserve(specs.size());
    for (const CardSpec& c : specs) {
        ids.push_back(c.id);
        min_defence = std::min(min_defence, c.defence);
        for (int owner = 1; owner <= 2; ++owner) {
            Kind k;
            k.defence = c.defence;
            k.damage = c.damage;
            k.berserker = c.berserker, k.cavalry = c.cavalry, k.spear = c.spear, k.support = c.support;
            k.general = c.general, k.command = c.command;
            k.cls = c.cls;
            // Player 2 faces the other way: a card-frame direction turns by 180 degrees.
            int turn = owner == 1 ? 0 : 4;
            for (auto [dir, value] : c.attacks) {
                if (value <= 0 || k.n_attacks >= 8) continue;
                int w = (dir + turn) % 8;
                k.attack_dir[k.n_attacks] = (uint8_t)w;
                k.attack_val[k.n_attacks] = value;
                k.attack_at[w] = value;
                k.card_attack[dir] = value;
                k.dirmask |= (uint8_t)(1 << w);
                ++k.n_attacks;
            }
            int f = owner == 1 ? 1 : -1;
            for (auto [right, forward] : c.targets) k.targets.emplace_back(right * f, forward * f);
            for (int dir : c.moves) {
                if (k.n_moves < 8) k.move_dir[k.n_moves++] = (uint8_t)((dir + turn) % 8);
            }
            kinds[owner].push_back(k);
        }
        for (auto t : c.targets) {
            if (!contains(shot_offsets, t)) shot_offsets.push_back(t);
        }
    }
    std::sort(shot_offsets.begin(), shot_offsets.end());
}

int CardTable::offset_index(int right, int forward) const {
    auto it = std::lower_bound(shot_offsets.begin(), shot_offsets.end(), std::make_pair(right, forward));
    if (it == shot_offsets.end() || *it != std::make_pair(right, forward)) return -1;
    return (int)(it - shot_offsets.begin());
}

// --- the board (position.BasePosition.place / remove) ------------------------------------------

Game::Game(std::shared_ptr<const CardTable> c, const Variant& variant) : cards_(std::move(c)), v_(variant) {
    if (v_.bordered) {
        ox_ = 0, oy_ = 0, w_ = WIDTH, h_ = HEIGHT;
    } else {
        ox_ = -8, oy_ = -8, w_ = WIDTH + 16, h_ = HEIGHT + 16;
    }
    cells_.assign((size_t)w_ * h_, -1);
    near_[1].assign(cells_.size(), 0);
    near_[2].assign(cells_.size(), 0);
    stamp_.assign(cells_.size(), 0);
    units_.reserve(48);
}

void Game::load(const Record& r) {
    turn_ = r.turn, to_move_ = r.to_move, quiet_turns_ = r.quiet_turns;
    for (const UnitRecord& u : r.units) place(u.square, u.card, u.owner);
    for (int p = 1; p <= 2; ++p) {
        hands_[p] = r.hands.at(p - 1), decks_[p] = r.decks.at(p - 1), lost_[p] = r.lost.at(p - 1);
    }
    start_turn();
    if (r.over) {
        over_ = true, winner_ = r.winner, outcome_ = r.outcome, phase_ = OVER;
        return;
    }
    for (Unit& u : units_) u.flags = 0;
    for (const UnitRecord& ur : r.units) {
        Unit& u = units_[unit_at(ur.square)];
        u.flags = (uint8_t)ur.flags, u.shot_damage = ur.shot_damage, u.shot_target = ur.shot_target;
        u.has_target = ur.has_target;
    }
    phase_ = r.phase;
    generals_lost_ = r.generals_lost, eliminated_ = r.eliminated, forced_ = r.forced, in_turn_ = r.in_turn;
    has_advance_ = r.has_advance;
    if (has_advance_) adv_ = r.advance;
}

Record Game::record() const {
    Record r;
    r.turn = turn_, r.to_move = to_move_, r.quiet_turns = quiet_turns_;
    std::vector<const Unit*> order;
    for (const Unit& u : units_) order.push_back(&u);
    std::sort(order.begin(), order.end(), [](const Unit* a, const Unit* b) { return a->seq < b->seq; });
    for (const Unit* u : order) {
        r.units.push_back(
            UnitRecord{u->sq, u->card, u->owner, u->flags, u->shot_damage, u->shot_target, u->has_target});
    }
    for (int p = 1; p <= 2; ++p) {
        r.hands[p - 1] = hands_[p], r.decks[p - 1] = decks_[p], r.lost[p - 1] = lost_[p];
    }
    r.over = over_, r.winner = winner_, r.outcome = outcome_;
    r.phase = phase_, r.generals_lost = generals_lost_;
    r.eliminated = eliminated_, r.forced = forced_, r.in_turn = in_turn_;
    r.has_advance = has_advance_;
    if (has_advance_) r.advance = adv_;
    return r;
}

void Game::set_cards(int player, std::vector<int16_t> hand, std::vector<int16_t> deck) {
    hands_[player] = std::move(hand), decks_[player] = std::move(deck);
    lost_[player].clear();
}

std::string square_name(Sq s) {
    int x = sq_x(s), y = sq_y(s);
    if (x >= 0 && x < WIDTH && y >= 0 && y < HEIGHT) return std::string(1, (char)('a' + x)) + std::to_string(y + 1);
    return std::to_string(x) + "," + std::to_string(y);
}

std::string Game::action_to_string(const Action& a) const {
    switch (a.kind) {
        case A_DEPLOY:
            return "deploy " + cards_->ids[a.card] + " " + square_name(a.to);
        case A_SHOOT:
            return "shoot " + square_name(a.from) + " " + square_name(a.to);
        case A_ADVANCE:
            return "advance " + square_name(a.from) + " " + square_name(a.to);
        case A_MOVE:
            return "move " + square_name(a.from) + " " + square_name(a.to);
        case A_RECALL:
            return "recall " + square_name(a.from);
        case A_DRAW:
            return "draw";
        default:
            return "pass";
    }
}

namespace {

void copy_text(std::string& to, const std::string& from) {
    if (!(to.empty() && from.empty())) to = from;
}

// A vector of plain values copied: in place when the sizes agree (the usual case between a game
// and its scratch copies), else as std::vector copies.
template <typename T>
inline void copy_values(std::vector<T>& to, const std::vector<T>& from) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (to.size() != from.size()) {
        to = from;
    } else if (!from.empty()) {
        std::memcpy(to.data(), from.data(), from.size() * sizeof(T));
    }
}

}  // namespace

Game& Game::operator=(const Game& o) {
    // Every member as the default copy does, but: the card table (a shared pointer) only when it
    // differs, the result's texts and the advance round only when either side has some, and
    // not the stamps of neighbour_squares: they are this object's scratch, read only against its
    // own stamp_now_, so they only need the window's size.
    if (this == &o) return *this;
    if (cards_ != o.cards_) cards_ = o.cards_;
    v_ = o.v_;
    turn_ = o.turn_, to_move_ = o.to_move_, quiet_turns_ = o.quiet_turns_;
    for (int p = 0; p < 3; ++p) {
        copy_values(hands_[p], o.hands_[p]);
        copy_values(decks_[p], o.decks_[p]);
        copy_values(lost_[p], o.lost_[p]);
    }
    over_ = o.over_;
    winner_ = o.winner_;
    copy_text(outcome_.termination, o.outcome_.termination);
    copy_text(outcome_.threshold, o.outcome_.threshold);
    copy_text(outcome_.ending, o.outcome_.ending);
    outcome_.count = o.outcome_.count, outcome_.player = o.outcome_.player;
    phase_ = o.phase_;
    generals_lost_ = o.generals_lost_;
    eliminated_ = o.eliminated_, forced_ = o.forced_, in_turn_ = o.in_turn_;
    has_advance_ = o.has_advance_;
    auto idle = [](const AdvanceRound& r) {
        return r.owners.empty() && r.candidates.empty() && r.taken.empty() && !r.advanced;
    };
    if (!(idle(adv_) && idle(o.adv_))) adv_ = o.adv_;
    copy_values(units_, o.units_);
    copy_values(cells_, o.cells_);
    for (int p = 0; p < 3; ++p) copy_values(near_[p], o.near_[p]);
    for (int p = 0; p < 3; ++p) occ_[p] = o.occ_[p];
    plan_ = o.plan_;
    copy_values(deploys_, o.deploys_);
    deploy_count_ = o.deploy_count_;
    deploys_valid_ = o.deploys_valid_;
    ox_ = o.ox_, oy_ = o.oy_, w_ = o.w_, h_ = o.h_;
    next_seq_ = o.next_seq_;
    if (stamp_.size() != o.stamp_.size()) {
        stamp_.assign(o.stamp_.size(), 0);
        stamp_now_ = 0;
    }
    return *this;
}

void Game::reveal(int player, const int16_t* cards) {
    for (auto* place : {&hands_[player], &decks_[player]}) {
        for (int16_t& c : *place) {
            if (c < 0) c = *cards++;
        }
    }
}

void Game::cover(Sq s) {
    // The window keeps a margin of at least one square around every unit on the unbordered mat.
    int x = sq_x(s), y = sq_y(s);
    if (v_.bordered || (x > ox_ && x < ox_ + w_ - 1 && y > oy_ && y < oy_ + h_ - 1)) return;
    // The unbordered mat grows: a new window around every unit and the new square.
    int minx = x, maxx = x, miny = y, maxy = y;
    for (const Unit& u : units_) {
        minx = std::min(minx, sq_x(u.sq)), maxx = std::max(maxx, sq_x(u.sq));
        miny = std::min(miny, sq_y(u.sq)), maxy = std::max(maxy, sq_y(u.sq));
    }
    ox_ = minx - 8, oy_ = miny - 8, w_ = maxx - minx + 17, h_ = maxy - miny + 17;
    cells_.assign((size_t)w_ * h_, -1);
    near_[1].assign(cells_.size(), 0);
    near_[2].assign(cells_.size(), 0);
    stamp_.assign(cells_.size(), 0);
    stamp_now_ = 0;
    for (size_t i = 0; i < units_.size(); ++i) {
        const Unit& u = units_[i];
        cells_[(size_t)(sq_x(u.sq) - ox_) * h_ + (sq_y(u.sq) - oy_)] = (int16_t)i;
        mark_near(u.sq, u.owner, true);
    }
}

void Game::mark_near(Sq s, int owner, bool on) {
    // Each neighbour ``t`` of ``s`` gets (or loses) the bit of the direction from ``t`` back to ``s``.
    const int x = sq_x(s) - ox_, y = sq_y(s) - oy_;
    uint8_t* near = near_[owner].data();
    for (int d = 0; d < 8; ++d) {
        unsigned i = (unsigned)(x + DX[d]), j = (unsigned)(y + DY[d]);
        if (i >= (unsigned)w_ || j >= (unsigned)h_) continue;
        uint8_t bit = (uint8_t)(1 << ((d + 4) % 8));
        if (on) near[i * h_ + j] |= bit;
        else near[i * h_ + j] &= (uint8_t)~bit;
    }
}

void Game::place(Sq s, int card, int owner) {
    cover(s);
    Unit u;
    u.sq = s;
    u.card = (int16_t)card;
    u.owner = (uint8_t)owner;
    u.seq = next_seq_++;
    const Kind& k = cards_->kinds[owner][card];
    const int x = sq_x(s), y = sq_y(s);
    // The directions from s with an enemy unit (near_: kept by mark_near), visited in order.
    const unsigned enemies = near_mask(s, 3 - owner);
    for (int a = 0; a < k.n_attacks; ++a) {
        if (!(enemies >> k.attack_dir[a] & 1)) continue;
        Unit& w = units_[unit_at_xy(x + DX[k.attack_dir[a]], y + DY[k.attack_dir[a]])];
        w.attack_sq[w.n_attacks] = s;
        w.attack_val[w.n_attacks] = k.attack_val[a];
        ++w.n_attacks;
    }
    for (unsigned dirs = enemies; dirs; dirs &= dirs - 1) {
        const int d = __builtin_ctz(dirs);
        int wi = unit_at_xy(x + DX[d], y + DY[d]);
        int value = kind(units_[wi]).attack_at[(d + 4) % 8];
        if (value) {
            u.attack_sq[u.n_attacks] = make_sq(x + DX[d], y + DY[d]);
            u.attack_val[u.n_attacks] = value;
            ++u.n_attacks;
        }
    }
    int idx = (int)units_.size();
    units_.push_back(u);
    cells_[(size_t)(sq_x(s) - ox_) * h_ + (sq_y(s) - oy_)] = (int16_t)idx;
    mark_near(s, owner, true);
    if (v_.bordered) occ_[owner] |= 1ULL << (sq_x(s) * HEIGHT + sq_y(s));
}

void Game::remove(Sq s) {
    int i = unit_at(s);
    const Kind& k = kind(units_[i]);
    const int x = sq_x(s), y = sq_y(s);
    for (int a = 0; a < k.n_attacks; ++a) {
        int wi = unit_at_xy(x + DX[k.attack_dir[a]], y + DY[k.attack_dir[a]]);
        if (wi < 0) continue;
        Unit& w = units_[wi];
        int n = 0;
        for (int e = 0; e < w.n_attacks; ++e) {
            if (w.attack_sq[e] != s) {
                w.attack_sq[n] = w.attack_sq[e];
                w.attack_val[n] = w.attack_val[e];
                ++n;
            }
        }
        w.n_attacks = (uint8_t)n;
    }
    cells_[(size_t)(sq_x(s) - ox_) * h_ + (sq_y(s) - oy_)] = -1;
    mark_near(s, units_[i].owner, false);
    if (v_.bordered) occ_[units_[i].owner] &= ~(1ULL << (sq_x(s) * HEIGHT + sq_y(s)));
    int last = (int)units_.size() - 1;
    if (i != last) {
        units_[i] = units_[last];
        const Unit& m = units_[i];
        cells_[(size_t)(sq_x(m.sq) - ox_) * h_ + (sq_y(m.sq) - oy_)] = (int16_t)i;
    }
    units_.pop_back();
}

namespace {

constexpr uint64_t ALL = (1ULL << (WIDTH * HEIGHT)) - 1;
constexpr uint64_t column_mask(int y) {
    uint64_t m = 0;
    for (int x = 0; x < WIDTH; ++x) m |= 1ULL << (x * HEIGHT + y);
    return m;
}
constexpr uint64_t ROW0 = column_mask(0), ROW5 = column_mask(HEIGHT - 1);

// The squares t with t + (dx, dy) in ``b`` (a neighbour step), on the bordered mat.
inline uint64_t back(uint64_t b, int dx, int dy) {
    if (dy == 1) b &= ~ROW0;
    if (dy == -1) b &= ~ROW5;
    int shift = dx * HEIGHT + dy;
    return (shift >= 0 ? b >> shift : b << -shift) & ALL;
}

inline Sq bit_square(int b) { return make_sq(b / HEIGHT, b % HEIGHT); }

inline Sq opening_square(int turn) { return turn == 1 ? make_sq(2, 2) : make_sq(4, 3); }

}  // namespace

void Game::adjacent_bitboards(int owner, uint64_t by_dir[8]) const {
    // by_dir[d]: the empty squares whose neighbour in direction d holds a unit of ``owner``.
    uint64_t empty = ALL & ~(occ_[1] | occ_[2]);
    for (int d = 0; d < 8; ++d) by_dir[d] = back(occ_[owner], DX[d], DY[d]) & empty;
}

void Game::neighbour_squares(std::vector<Sq>& out) const {
    // The empty squares next to any unit, on the mat when it is bordered: the keys of
    // position.near not on the board.
    out.clear();
    if (v_.bordered) {
        for (int x = 0; x < WIDTH; ++x) {
            for (int y = 0; y < HEIGHT; ++y) {
                size_t c = (size_t)x * h_ + y;
                if (cells_[c] < 0 && (near_[1][c] | near_[2][c])) out.push_back(make_sq(x, y));
            }
        }
        return;
    }
    if (++stamp_now_ == 0) {
        std::fill(stamp_.begin(), stamp_.end(), 0);
        stamp_now_ = 1;
    }
    for (const Unit& u : units_) {
        for (int d = 0; d < 8; ++d) {
            Sq t = step(u.sq, d);
            if (!on_mat(t)) continue;
            // The window holds every unit with a margin (cover), so ``t`` is inside it.
            size_t c = (size_t)(sq_x(t) - ox_) * h_ + (sq_y(t) - oy_);
            if (cells_[c] >= 0 || stamp_[c] == stamp_now_) continue;
            stamp_[c] = stamp_now_;
            out.push_back(t);
        }
    }
}

// --- deployment (1.3, 3): engine.deploy_options, could_deploy ------------------------------------

namespace {

// The cards of a hand, each once, in the order of their first place in it.
int unique_cards(const std::vector<int16_t>& hand, int player, int16_t* uniq) {
    for (int16_t c : hand) {
        if (c < 0) throw HiddenError("player " + std::to_string(player) + "'s hand is hidden in this view");
    }
    int nu = 0;
    for (int16_t c : hand) {
        bool seen = false;
        for (int i = 0; i < nu; ++i) seen |= uniq[i] == c;
        if (!seen && nu < HAND_LIMIT) uniq[nu++] = c;
    }
    return nu;
}

}  // namespace

void Game::deploy_plan(int player, int turn_no, DeployPlan& plan, bool& forced_out) const {
    // engine.deploy_options on the bordered mat, as bitboards.
    forced_out = false;
    plan.n = plan.count = 0;
    const auto& hand = hands_[player];
    if (hand.empty()) return;
    plan.n = unique_cards(hand, player, plan.card);
    auto fill = [&](auto&& squares_of) {
        plan.count = 0;
        for (int i = 0; i < plan.n; ++i) {
            plan.squares[i] = squares_of(i);
            plan.count += __builtin_popcountll(plan.squares[i]);
        }
    };
    if (turn_no <= 2) {  // 1.3 the openings
        Sq s = opening_square(turn_no);
        uint64_t b = unit_at(s) < 0 ? 1ULL << (sq_x(s) * HEIGHT + sq_y(s)) : 0;
        fill([&](int) { return b; });
        return;
    }
    if (units_.empty()) {  // 3.1 special free deployment
        fill([&](int) { return ALL; });
        return;
    }
    int enemy = 3 - player;
    uint64_t e[8], f[8], enemy_adj = 0, friend_adj = 0;
    adjacent_bitboards(enemy, e);
    adjacent_bitboards(player, f);
    for (int d = 0; d < 8; ++d) enemy_adj |= e[d], friend_adj |= f[d];
    if (!occ_[enemy]) {  // 3.2 free deployment
        fill([&](int) { return friend_adj; });
        return;
    }
    fill([&](int i) {
        const Kind& k = cards_->kinds[player][plan.card[i]];
        uint64_t b = 0;
        for (int d = 0; d < 8; ++d) {
            if (k.dirmask & (1 << d)) b |= e[d];  // 3.3 the Engagement Rule
        }
        if (k.support) b |= friend_adj;  // 3.3 a support unit next to a friend
        return b;
    });
    if (plan.count) return;
    fill([&](int) { return enemy_adj; });  // 3.4 forced deployment
    forced_out = true;
}

void Game::append_plan(const DeployPlan& plan, std::vector<Action>& out) {
    for (int i = 0; i < plan.n; ++i) {
        for (uint64_t b = plan.squares[i]; b; b &= b - 1) {
            out.push_back(Action{A_DEPLOY, plan.card[i], 0, bit_square(__builtin_ctzll(b))});
        }
    }
}

void Game::deploy_options(int player, int turn_no, std::vector<Action>& out, bool& forced_out) const {
    if (v_.bordered) {
        DeployPlan plan;
        deploy_plan(player, turn_no, plan, forced_out);
        append_plan(plan, out);
        return;
    }
    forced_out = false;
    const auto& hand = hands_[player];
    if (hand.empty()) return;
    int16_t uniq[HAND_LIMIT];
    int nu = unique_cards(hand, player, uniq);
    auto add = [&](int16_t c, Sq s) { out.push_back(Action{A_DEPLOY, c, 0, s}); };
    if (turn_no <= 2) {
        Sq s = opening_square(turn_no);
        if (unit_at(s) < 0) {
            for (int i = 0; i < nu; ++i) add(uniq[i], s);
        }
        return;
    }
    if (units_.empty()) {  // 3.1 special free deployment
        for (int i = 0; i < nu; ++i) {
            for (int x = 0; x < WIDTH; ++x) {
                for (int y = 0; y < HEIGHT; ++y) add(uniq[i], make_sq(x, y));
            }
        }
        return;
    }
    int enemy = 3 - player;
    bool has_enemy = false;
    for (const Unit& u : units_) has_enemy |= u.owner == enemy;
    std::vector<Sq> all;
    neighbour_squares(all);
    if (!has_enemy) {  // 3.2 free deployment
        for (int i = 0; i < nu; ++i) {
            for (Sq s : all) {
                if (near_mask(s, player)) add(uniq[i], s);
            }
        }
        return;
    }
    for (int i = 0; i < nu; ++i) {
        const Kind& k = cards_->kinds[player][uniq[i]];
        for (Sq s : all) {
            uint8_t em = near_mask(s, enemy);
            if (em & k.dirmask) add(uniq[i], s);  // 3.3 the Engagement Rule
            else if (k.support && near_mask(s, player)) add(uniq[i], s);  // 3.3 a support unit next to a friend
        }
    }
    if (!out.empty()) return;
    for (int i = 0; i < nu; ++i) {  // 3.4 forced deployment
        for (Sq s : all) {
            if (near_mask(s, enemy)) add(uniq[i], s);
        }
    }
    forced_out = true;
}

bool Game::could_deploy(int player, int turn_no) const {
    const auto& hand = hands_[player];
    if (hand.empty()) return false;
    if (turn_no <= 2) return unit_at(opening_square(turn_no)) < 0;
    if (units_.empty()) return true;
    int enemy = 3 - player;
    if (v_.bordered) {
        uint64_t e[8], f[8], enemy_adj = 0, friend_adj = 0;
        adjacent_bitboards(enemy, e);
        adjacent_bitboards(player, f);
        for (int d = 0; d < 8; ++d) enemy_adj |= e[d], friend_adj |= f[d];
        if (enemy_adj) return true;  // some card engages, or else the deployment is forced (3.4)
        if (!friend_adj) return false;
        if (!occ_[enemy]) return true;
        for (int16_t c : hand) {
            if (c < 0) throw HiddenError("player " + std::to_string(player) + "'s hand is hidden in this view");
        }
        for (int16_t c : hand) {
            if (cards_->kinds[player][c].support) return true;
        }
        return false;
    }
    std::vector<Sq> all;
    neighbour_squares(all);
    bool friend_adj = false;
    for (Sq s : all) {
        if (near_mask(s, enemy)) return true;  // some card engages, or else the deployment is forced (3.4)
        friend_adj |= near_mask(s, player) != 0;
    }
    bool has_enemy = false;
    for (const Unit& u : units_) has_enemy |= u.owner == enemy;
    if (!friend_adj) return false;
    if (!has_enemy) return true;
    for (int16_t c : hand) {
        if (c < 0) throw HiddenError("player " + std::to_string(player) + "'s hand is hidden in this view");
    }
    for (int16_t c : hand) {
        if (cards_->kinds[player][c].support) return true;
    }
    return false;
}

void Game::resolve_start() {
    // 3.4: with no deployment possible the turn goes straight to the post-deployment phase.
    if (phase_ != PRE) return;
    if (!deploys_valid_) {
        if (v_.bordered) {
            deploy_plan(to_move_, turn_, plan_, forced_);
            deploy_count_ = plan_.count;
        } else {
            deploys_.clear();
            deploy_options(to_move_, turn_, deploys_, forced_);
            deploy_count_ = (int)deploys_.size();
        }
        deploys_valid_ = true;
    }
    if (!deploy_count_) phase_ = POST;
}

Action Game::deploy_at(int i) const {
    if (!v_.bordered) return deploys_[i];
    for (int c = 0; c < plan_.n; ++c) {
        int n = __builtin_popcountll(plan_.squares[c]);
        if (i < n) {
            uint64_t b = plan_.squares[c];
            for (; i > 0; --i) b &= b - 1;
            return Action{A_DEPLOY, plan_.card[c], 0, bit_square(__builtin_ctzll(b))};
        }
        i -= n;
    }
    return Action{};
}

// --- shooting (5) --------------------------------------------------------------------------------

bool Game::can_shoot(const Unit& u) const {
    if (turn_ <= 2) return false;  // 1.3: no shots in the opening turns
    if (u.flags & (SHOT | TOOK_PART | ENGAGED_AT_START)) return false;
    if ((u.flags & DEPLOYED) && !(u.flags & SUPPORTED)) return false;
    return u.n_attacks == 0;
}

void Game::shots(std::vector<Action>& out) const {
    int player = to_move_;
    for (const Unit& u : units_) {
        if (u.owner != player) continue;
        const Kind& k = kind(u);
        if (k.targets.empty() || !can_shoot(u)) continue;
        int x = sq_x(u.sq), y = sq_y(u.sq);
        for (auto [dx, dy] : k.targets) {
            Sq t = make_sq(x + dx, y + dy);
            int wi = unit_at(t);
            if (wi >= 0 && units_[wi].owner != player) out.push_back(Action{A_SHOOT, -1, u.sq, t});
        }
    }
}

// --- moving, recall, reinforcement (7) ---------------------------------------------------------

void Game::moves(std::vector<Action>& out) const {
    int player = to_move_;
    for (const Unit& u : units_) {
        if (u.owner != player || (u.flags & MOVED) || u.n_attacks) continue;
        const Kind& k = kind(u);
        for (int m = 0; m < k.n_moves; ++m) {
            Sq t = step(u.sq, k.move_dir[m]);
            if (unit_at(t) < 0 && on_mat(t)) out.push_back(Action{A_MOVE, -1, u.sq, t});
        }
    }
}

bool Game::engaged_by_spear(const Unit& u) const {
    for (int e = 0; e < u.n_attacks; ++e) {
        if (kind(units_[unit_at(u.attack_sq[e])]).spear) return true;
    }
    return false;
}

bool Game::recallable(const Unit& u, int f) const {
    if (f & DEPLOYED) return false;
    if (kind(u).cavalry && v_.intermediate) return !engaged_by_spear(u);
    return !(f & TOOK_PART) && u.n_attacks == 0;
}

void Game::reinforcements(std::vector<Action>& out) const {
    int player = to_move_;
    if ((int)hands_[player].size() >= HAND_LIMIT) {
        out.push_back(Action{A_PASS, -1, 0, 0});
        return;
    }
    size_t before = out.size();
    if (!decks_[player].empty()) out.push_back(Action{A_DRAW, -1, 0, 0});
    for (const Unit& u : units_) {
        if (u.owner == player && recallable(u, u.flags)) out.push_back(Action{A_RECALL, -1, u.sq, 0});
    }
    if (out.size() == before) out.push_back(Action{A_PASS, -1, 0, 0});
}

// --- berserker advances (6) --------------------------------------------------------------------

void Game::waiting(int owner, std::vector<std::pair<Sq, std::vector<Sq>>>& out) const {
    out.clear();
    for (const auto& [b, squares] : adv_.candidates) {
        if (units_[unit_at(b)].owner != owner) continue;
        std::vector<Sq> free;
        for (Sq t : squares) {
            if (!contains(adv_.taken, t)) free.push_back(t);
        }
        if (!free.empty()) out.emplace_back(b, std::move(free));
    }
}

void Game::advance_choices(std::vector<Action>& out) const {
    if (!has_advance_ || adv_.owners.empty()) return;
    std::vector<std::pair<Sq, std::vector<Sq>>> w;
    waiting(adv_.owners[0], w);
    for (const auto& [b, ts] : w) {
        if (units_[unit_at(b)].flags & DEPLOYED) {
            for (Sq t : ts) out.push_back(Action{A_ADVANCE, -1, b, t});
            return;
        }
    }
    for (const auto& [b, ts] : w) {
        for (Sq t : ts) out.push_back(Action{A_ADVANCE, -1, b, t});
    }
}

bool Game::auto_advances(int owner, std::vector<Event>* ev) {
    std::vector<std::pair<Sq, std::vector<Sq>>> w;
    while (true) {
        waiting(owner, w);
        if (w.empty()) return false;
        const std::pair<Sq, std::vector<Sq>>* deployed = nullptr;
        for (const auto& e : w) {
            if (units_[unit_at(e.first)].flags & DEPLOYED) {
                deployed = &e;
                break;
            }
        }
        if (deployed) {
            if (deployed->second.size() == 1) {
                do_advance(deployed->first, deployed->second[0], ev);
                continue;
            }
            return true;
        }
        const std::pair<Sq, std::vector<Sq>>* single = nullptr;
        for (const auto& e : w) {
            if (e.second.size() != 1) continue;
            bool shared = false;
            for (const auto& o : w) {
                if (o.first != e.first && contains(o.second, e.second[0])) shared = true;
            }
            if (!shared) {
                single = &e;
                break;
            }
        }
        if (!single) return true;
        do_advance(single->first, single->second[0], ev);
    }
}

void Game::relocate(Sq src, Sq dst) {
    // Move a unit and everything this turn knows about it from ``src`` to ``dst``.
    Unit old = units_[unit_at(src)];
    remove(src);
    place(dst, old.card, old.owner);
    Unit& u = units_[unit_at(dst)];
    u.flags = old.flags;
    u.shot_damage = old.shot_damage;
    u.shot_target = old.shot_target;
    u.has_target = old.has_target;
    for (Unit& w : units_) {
        if (w.has_target && w.shot_target == src) w.shot_target = dst;
    }
}

void Game::do_advance(Sq b, Sq t, std::vector<Event>* ev) {
    const Unit& u = units_[unit_at(b)];
    int card = u.card, owner = u.owner;
    relocate(b, t);
    for (auto it = adv_.candidates.begin(); it != adv_.candidates.end(); ++it) {
        if (it->first == b) {
            adv_.candidates.erase(it);
            break;
        }
    }
    adv_.taken.push_back(t);
    adv_.advanced = true;
    if (ev) {
        Event e{E_ADVANCE};
        e.a = b, e.b = t, e.player = (int8_t)owner, e.card = (int16_t)card;
        ev->push_back(std::move(e));
    }
}

void Game::resolve_advances(std::vector<Event>* ev) {
    // 6.3: run advance rounds, each followed by a check, until none is due or a choice waits.
    while (has_advance_) {
        while (!adv_.owners.empty()) {
            if (auto_advances(adv_.owners[0], ev)) {
                phase_ = ADVANCE;
                return;
            }
            adv_.owners.erase(adv_.owners.begin());
        }
        bool advanced = adv_.advanced;
        has_advance_ = false;
        adv_ = AdvanceRound();
        if (advanced) after_check(check(ev));
    }
    phase_ = POST;
}

void Game::after_check(std::vector<std::pair<Sq, std::vector<Sq>>>&& candidates) {
    if (candidates.empty()) return;
    AdvanceRound a;
    for (int o : {to_move_, 3 - to_move_}) {
        for (const auto& c : candidates) {
            if (units_[unit_at(c.first)].owner == o) {
                a.owners.push_back(o);
                break;
            }
        }
    }
    a.candidates = std::move(candidates);
    adv_ = std::move(a);
    has_advance_ = true;
}

// --- combat (4) --------------------------------------------------------------------------------

namespace {

// A list of squares held on the stack while it is short (a check's lists: no allocation for
// the usual few units), on the heap past that.
class SquareList {
   public:
    void push_back(Sq s) {
        if (n_ < SMALL) {
            small_[n_] = s;
        } else {
            if (n_ == SMALL) big_.assign(small_, small_ + SMALL);
            big_.push_back(s);
        }
        ++n_;
    }
    Sq* begin() { return n_ <= SMALL ? small_ : big_.data(); }
    Sq* end() { return begin() + n_; }
    bool empty() const { return n_ == 0; }

   private:
    static constexpr size_t SMALL = 64;
    Sq small_[SMALL];
    std::vector<Sq> big_;
    size_t n_ = 0;
};

}  // namespace

std::vector<std::pair<Sq, std::vector<Sq>>> Game::check(std::vector<Event>* ev) {
    // 4.1-4.5: eliminate, all at once, every unit whose damage exceeds its defence.
    std::vector<std::pair<Sq, std::vector<Sq>>> candidates;
    bool shooters = false;
    for (const Unit& u : units_) shooters |= (u.flags & SHOT) != 0;
    SquareList dl, part;
    const bool no_negative_defence = cards_->min_defence >= 0;
    for (const Unit& u : units_) {
        // A unit nothing attacks or shoots at takes no damage: only a negative defence dooms it.
        if (!u.n_attacks && u.shot_damage <= 0 && no_negative_defence) continue;
        int total = u.shot_damage > 0 ? u.shot_damage : 0;
        for (int e = 0; e < u.n_attacks; ++e) {
            if (shooters && (units_[unit_at(u.attack_sq[e])].flags & SHOT)) continue;
            total += u.attack_val[e];
        }
        if (total > kind(u).defence) dl.push_back(u.sq);
    }
    if (dl.empty()) return candidates;
    std::sort(dl.begin(), dl.end());
    auto is_doomed = [&](Sq s) { return std::binary_search(dl.begin(), dl.end(), s); };
    for (Sq t : dl) {
        const Unit& ut = units_[unit_at(t)];
        for (int e = 0; e < ut.n_attacks; ++e) {
            Sq s = ut.attack_sq[e];
            const Unit& us = units_[unit_at(s)];
            if (us.flags & SHOT) continue;  // 5.5: a unit that shot deals no melee damage
            part.push_back(s);
            if (v_.intermediate && !is_doomed(s) && kind(us).berserker) {
                bool found = false;
                for (auto& c : candidates) {
                    if (c.first == s) {
                        c.second.push_back(t);
                        found = true;
                        break;
                    }
                }
                if (!found) candidates.emplace_back(s, std::vector<Sq>{t});
            }
        }
    }
    for (const Unit& u : units_) {
        if (u.has_target && is_doomed(u.shot_target)) part.push_back(u.sq);
    }
    for (Sq t : dl) {
        const Unit& u = units_[unit_at(t)];
        int card = u.card, owner = u.owner;
        bool general = kind(u).general;
        remove(t);
        lost_[owner].push_back((int16_t)card);
        if (general) generals_lost_ |= 1 << owner;
        if (ev) {
            Event e{E_ELIMINATED};
            e.a = t, e.card = (int16_t)card, e.player = (int8_t)owner;
            ev->push_back(std::move(e));
        }
    }
    for (Unit& u : units_) {
        if (u.has_target && is_doomed(u.shot_target)) u.has_target = false;
    }
    for (Sq s : part) {
        if (!is_doomed(s)) units_[unit_at(s)].flags |= TOOK_PART;
    }
    eliminated_ = true;
    std::vector<std::pair<Sq, std::vector<Sq>>> out;
    for (auto& c : candidates) {
        if (units_[unit_at(c.first)].n_attacks == 0) out.push_back(std::move(c));
    }
    return out;
}

// --- the turn ----------------------------------------------------------------------------------

void Game::start_turn() {
    // Reset the turn state for ``to_move`` and note which ranged units start engaged (5.2).
    phase_ = PRE;
    for (Unit& u : units_) {
        u.flags = 0;
        u.shot_damage = -1;
        u.has_target = false;
    }
    generals_lost_ = 0;
    eliminated_ = false;
    forced_ = false;
    has_advance_ = false;
    adv_ = AdvanceRound();
    in_turn_ = false;
    deploys_valid_ = false;
    deploys_.clear();
    deploy_count_ = 0;
    for (Unit& u : units_) {
        if (u.owner == to_move_ && !kind(u).targets.empty() && u.n_attacks) u.flags = ENGAGED_AT_START;
    }
}

void Game::legal(std::vector<Action>& out, bool with_reinforcements) {
    out.clear();
    if (over_) return;
    if (phase_ == PRE) {
        resolve_start();
        if (phase_ == PRE) {
            shots(out);
            if (!v_.bordered) {
                out.insert(out.end(), deploys_.begin(), deploys_.end());
                return;
            }
            append_plan(plan_, out);
            return;
        }
    }
    if (phase_ == ADVANCE) {
        advance_choices(out);
        return;
    }
    shots(out);
    moves(out);
    if (with_reinforcements) reinforcements(out);
}

void Game::push(const Action& a, std::vector<Event>* ev) {
    in_turn_ = true;
    int player = to_move_;
    switch (a.kind) {
        case A_DEPLOY: {
            // 3: place the card; 3.4 reveals the hand of a forced deployment; then the check (4.2).
            auto& hand = hands_[player];
            if (forced_ && ev) {
                Event e{E_REVEAL};
                e.player = (int8_t)player, e.hand = hand;
                ev->push_back(std::move(e));
            }
            hand.erase(std::find(hand.begin(), hand.end(), a.card));
            bool supported = near_mask(a.to, player) != 0;  // 5.2: placed next to a friendly unit
            place(a.to, a.card, player);
            units_[unit_at(a.to)].flags = (uint8_t)(DEPLOYED | (supported ? SUPPORTED : 0));
            if (ev) {
                Event e{E_DEPLOY};
                e.card = a.card, e.a = a.to, e.player = (int8_t)player, e.flag = forced_;
                ev->push_back(std::move(e));
            }
            phase_ = POST;
            after_check(check(ev));
            resolve_advances(ev);
            break;
        }
        case A_SHOOT: {
            // 5.3-5.4: a declared shot waits for the deployment's check; a fired one runs a check.
            Unit& shooter = units_[unit_at(a.from)];
            int damage = kind(shooter).damage;
            shooter.flags |= SHOT;
            shooter.shot_target = a.to;
            shooter.has_target = true;
            int card = shooter.card;
            Unit& target = units_[unit_at(a.to)];
            target.shot_damage = (target.shot_damage > 0 ? target.shot_damage : 0) + damage;
            bool declared = phase_ == PRE;
            if (ev) {
                Event e{E_SHOT};
                e.a = a.from, e.b = a.to, e.damage = damage, e.flag = declared, e.card = (int16_t)card;
                e.card2 = target.card;
                ev->push_back(std::move(e));
            }
            if (!declared) {
                after_check(check(ev));
                resolve_advances(ev);
            }
            break;
        }
        case A_ADVANCE:
            do_advance(a.from, a.to, ev);
            resolve_advances(ev);
            break;
        case A_MOVE: {
            // 7.1: one step, then a check.
            relocate(a.from, a.to);
            Unit& u = units_[unit_at(a.to)];
            u.flags |= MOVED;
            if (ev) {
                Event e{E_MOVE};
                e.a = a.from, e.b = a.to, e.player = (int8_t)player, e.card = u.card;
                ev->push_back(std::move(e));
            }
            after_check(check(ev));
            resolve_advances(ev);
            break;
        }
        case A_RECALL: {
            int card = units_[unit_at(a.from)].card;
            remove(a.from);
            hands_[player].push_back((int16_t)card);
            if (ev) {
                Event e{E_RECALL};
                e.a = a.from, e.card = (int16_t)card, e.player = (int8_t)player;
                ev->push_back(std::move(e));
            }
            end_turn(ev);
            break;
        }
        case A_DRAW: {
            auto& deck = decks_[player];
            hands_[player].push_back(deck.front());
            deck.erase(deck.begin());
            if (ev) {
                Event e{E_DRAW};
                e.player = (int8_t)player;
                ev->push_back(std::move(e));
            }
            end_turn(ev);
            break;
        }
        default: {
            if (ev) {
                Event e{E_PASS};
                e.player = (int8_t)player;
                ev->push_back(std::move(e));
            }
            end_turn(ev);
        }
    }
}

// --- the end of a turn and of the game (7.4, 8) -------------------------------------------------

int Game::commands_eliminated(int player) const {
    int n = 0;
    for (int16_t c : lost_[3 - player]) n += cards_->kinds[1][c].command;
    return n;
}

bool Game::threshold_result(int& win, Outcome& out) const {
    // 8.2: the winner (or draw) when a player has reached a threshold.
    int U = v_.units_to_win, C = v_.commands_to_win;
    int u1 = (int)lost_[2].size(), u2 = (int)lost_[1].size();
    if (u1 < U && u2 < U && u1 < C && u2 < C) return false;
    int c1 = commands_eliminated(1), c2 = commands_eliminated(2);
    if (u1 < U && u2 < U && c1 < C && c2 < C) return false;
    bool cmd[3] = {false, c1 >= C, c2 >= C};
    bool unit[3] = {false, u1 >= U, u2 >= U};
    bool reached[3] = {false, cmd[1] || unit[1], cmd[2] || unit[2]};
    int units[3] = {0, u1, u2}, commands[3] = {0, c1, c2};
    out = Outcome();
    auto single = [&](int p) {
        win = p;
        out.termination = cmd[p] ? "commands" : "units";
        out.count = cmd[p] ? commands[p] : units[p];
        return true;
    };
    if (reached[1] && !reached[2]) return single(1);
    if (reached[2] && !reached[1]) return single(2);
    if (!reached[1]) return false;
    if (cmd[1] != cmd[2]) {
        win = cmd[1] ? 1 : 2;
        out.termination = "both_command_threshold";
        return true;
    }
    // Both reached the same threshold: the other count decides first, then the threshold's own.
    out.threshold = cmd[1] ? "commands" : "units";
    const int* first = cmd[1] ? units : commands;
    const int* second = cmd[1] ? commands : units;
    const char* first_code = cmd[1] ? "more_units" : "more_commands";
    const char* second_code = cmd[1] ? "more_commands" : "more_units";
    const int* values[2] = {first, second};
    const char* codes[2] = {first_code, second_code};
    for (int i = 0; i < 2; ++i) {
        if (values[i][1] != values[i][2]) {
            win = values[i][1] > values[i][2] ? 1 : 2;
            out.termination = codes[i];
            return true;
        }
    }
    win = 0;
    out.termination = "equal";
    return true;
}

bool Game::could_act(int player, int turn_no) const {
    // 8.3: could ``player`` deploy, draw or recall at the start of turn ``turn_no`` on this mat?
    bool hand_open = (int)hands_[player].size() < HAND_LIMIT;
    if (hand_open && !decks_[player].empty()) return true;
    if (could_deploy(player, turn_no)) return true;
    if (hand_open) {
        for (const Unit& u : units_) {
            if (u.owner == player && recallable(u, 0)) return true;
        }
    }
    return false;
}

void Game::end_turn(std::vector<Event>* ev) {
    // After the reinforcement: 8.2, then 8.3, then the next turn (7.4 extra turn).
    int player = to_move_, other = 3 - player;
    quiet_turns_ = eliminated_ ? 0 : quiet_turns_ + 1;
    bool extra = (generals_lost_ & (1 << other)) && !(generals_lost_ & (1 << player));
    int nxt = extra ? player : other;
    int win = 0;
    Outcome why;
    bool done = threshold_result(win, why);
    if (!done && v_.no_progress_turns && quiet_turns_ >= v_.no_progress_turns) {
        done = true, win = 0;
        why.termination = "no_progress", why.count = v_.no_progress_turns;
    }
    if (!done) {
        int later = 3 - nxt;
        if (!could_act(nxt, turn_ + 1) && !could_act(later, turn_ + 2)) {
            done = true, win = 0;
            why.termination = "no_action";
        }
    }
    if (done) {
        finish(win, why, ev);
        return;
    }
    if (extra && ev) {
        Event e{E_EXTRA};
        e.player = (int8_t)player;
        ev->push_back(std::move(e));
    }
    ++turn_;
    to_move_ = nxt;
    start_turn();
}

void Game::finish(int win, const Outcome& why, std::vector<Event>* ev) {
    over_ = true;
    winner_ = win;
    outcome_ = why;
    phase_ = OVER;
    has_advance_ = false;
    adv_ = AdvanceRound();
    in_turn_ = false;
    if (ev) {
        Event e{E_RESULT};
        e.player = (int8_t)win;
        ev->push_back(std::move(e));
    }
}

}  // namespace low

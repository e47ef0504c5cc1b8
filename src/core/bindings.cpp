// The Python binding of the core: lordsofwar.core._core. The public face is
// lordsofwar/core/_native.py; this module moves data in and out and keeps the loops in C++.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "batch.hpp"
#include "engine.hpp"
#include "net.hpp"
#include "play.hpp"
#include "search.hpp"

namespace nb = nanobind;
using namespace low;

namespace {

struct Cards {
    std::shared_ptr<const CardTable> table;
};

using U8 = nb::ndarray<uint8_t, nb::c_contig, nb::device::cpu>;
using I8 = nb::ndarray<int8_t, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<const int32_t, nb::c_contig, nb::device::cpu>;
using I32W = nb::ndarray<int32_t, nb::c_contig, nb::device::cpu>;
using F32 = nb::ndarray<float, nb::c_contig, nb::device::cpu>;

void check_buffers(const Batch& b, const U8& planes, const F32& info, const U8& mask, const I8& to_play) {
    size_t n = (size_t)b.size, squares = (size_t)b.width * b.height;
    if (planes.size() != n * PLANES * squares || info.size() != n * INFO || mask.size() != n * b.num_actions() ||
        to_play.size() != n)
        throw nb::value_error("buffers of the wrong size for this batch (see lordsofwar.core.Batch)");
}

// The notation of squares and actions is the core's (Game::action_to_string, square_name).
std::string sq_name(Sq s) { return square_name(s); }

// The greedy bot's settings, made once in Python per card set and variant
// (lordsofwar.core._native.greedy_handle). Each thread keeps its own bot per settings object and
// reuses it from decision to decision (its scratch games keep their allocations, its card tables
// are made once), so a decision does not build a bot; the card table the bot last read is held
// with it, so no other table can take its address while the bot remembers it.
struct GreedyHandle {
    std::shared_ptr<const GreedyParams> params;
    uint64_t id;
};
std::atomic<uint64_t> next_greedy_id{1};

Greedy& thread_bot(const GreedyHandle& h, const Game& g) {
    struct Cached {
        uint64_t id;
        std::unique_ptr<Greedy> bot;
        std::shared_ptr<const CardTable> table;
    };
    thread_local std::vector<Cached> bots;
    auto it = std::find_if(bots.begin(), bots.end(), [&](const Cached& c) { return c.id == h.id; });
    if (it == bots.end()) {
        if (bots.size() >= 8) bots.erase(bots.begin());
        bots.push_back(Cached{h.id, std::make_unique<Greedy>(*h.params), nullptr});
        it = bots.end() - 1;
    }
    it->bot->use_tables(g);  // before the table it last read may go
    it->table = g.card_table();
    return *it->bot;
}

// A network with an action head reads the greedy bot's judgement: its settings must be given,
// for ``cards`` (search() checks its own spec alike).
void check_greedy(const Net& net, const GreedyHandle* greedy, const CardTable& cards, const char* who) {
    if (net.has_action_head() && (!greedy || greedy->params->values.size() != cards.ids.size()))
        throw nb::value_error((std::string(who) + ": the network's action head needs the greedy bot's settings "
                               "for this card set").c_str());
}

nb::object card_or_none(const Game& g, int c) { return c < 0 ? nb::none() : nb::cast(g.cards().ids[c]); }

// A finished game's result: (winner, termination, count, player, threshold, ending), 0, -1 and ""
// where there is none (lordsofwar.rules.result.Result; lordsofwar/core/_native.py converts it).
using ResultTuple = std::tuple<int, std::string, int, int, std::string, std::string>;

nb::object result_tuple(const Game& g) {
    if (!g.over()) return nb::none();
    const Outcome& o = g.outcome();
    return nb::cast(ResultTuple{g.winner(), o.termination, o.count, o.player, o.threshold, o.ending});
}

// The same for a Record, both ways.
nb::object record_result(const Record& r) {
    if (!r.over) return nb::none();
    const Outcome& o = r.outcome;
    return nb::cast(ResultTuple{r.winner, o.termination, o.count, o.player, o.threshold, o.ending});
}

void set_record_result(Record& r, const std::optional<ResultTuple>& t) {
    r.over = t.has_value();
    if (!t) {
        r.winner = 0, r.outcome = Outcome();
        return;
    }
    auto& [winner, termination, count, player, threshold, ending] = *t;
    r.winner = winner, r.outcome = Outcome{termination, threshold, ending, count, player};
}

nb::list events_to_python(const Game& g, const std::vector<Event>& events) {
    nb::list out;
    for (const Event& e : events) {
        nb::dict d;
        switch (e.type) {
            case E_REVEAL: {
                d["type"] = "reveal";
                d["player"] = (int)e.player;
                nb::list hand;
                for (int16_t c : e.hand) hand.append(card_or_none(g, c));
                d["hand"] = hand;
                break;
            }
            case E_DEPLOY:
                d["type"] = "deploy";
                d["card"] = g.cards().ids[e.card];
                d["square"] = sq_name(e.a);
                d["player"] = (int)e.player;
                d["forced"] = e.flag;
                break;
            case E_SHOT:
                d["type"] = "shot";
                d["from"] = sq_name(e.a);
                d["target"] = sq_name(e.b);
                d["damage"] = e.damage;
                d["declared"] = e.flag;
                d["card"] = g.cards().ids[e.card];
                d["target_card"] = g.cards().ids[e.card2];
                break;
            case E_ELIMINATED:
                d["type"] = "eliminated";
                d["square"] = sq_name(e.a);
                d["card"] = g.cards().ids[e.card];
                d["owner"] = (int)e.player;
                break;
            case E_ADVANCE:
            case E_MOVE:
                d["type"] = e.type == E_ADVANCE ? "advance" : "move";
                d["from"] = sq_name(e.a);
                d["to"] = sq_name(e.b);
                d["owner"] = (int)e.player;
                d["card"] = g.cards().ids[e.card];
                break;
            case E_RECALL:
                d["type"] = "recall";
                d["square"] = sq_name(e.a);
                d["card"] = g.cards().ids[e.card];
                d["player"] = (int)e.player;
                break;
            case E_DRAW:
            case E_PASS:
            case E_EXTRA:
                d["type"] = e.type == E_DRAW ? "draw" : (e.type == E_PASS ? "pass" : "extra_turn");
                d["player"] = (int)e.player;
                break;
            default:
                d["type"] = "result";
                d["winner"] = e.player ? nb::cast((int)e.player) : nb::none();
                d["termination"] = g.outcome().termination;  // _native.py makes the whole result event
        }
        out.append(d);
    }
    return out;
}

struct State {
    Game g;
    std::vector<Action> buf;

    State(const Cards& cards, const Variant& v) : g(cards.table, v) { buf.reserve(256); }

    Frame frame(int w, int h) const { return frame_of(g, w, h); }

    std::vector<Action>& legal() {
        g.legal(buf);
        return buf;
    }

    // Apply a legal action. In a view, the rules may need a hidden card midway (the end of a
    // turn asks whether the next player could deploy); then the game is put back as it was.
    void push(const Action& a, std::vector<Event>* ev) {
        auto& l = legal();
        if (std::find(l.begin(), l.end(), a) == l.end()) throw IllegalError("illegal");
        if (!g.hidden_cards()) {
            g.push(a, ev);
            return;
        }
        Game before = g;
        try {
            g.push(a, ev);
        } catch (const HiddenError&) {
            g = std::move(before);
            throw;
        }
    }

    nb::list run(const Action& a) {
        std::vector<Event> ev;
        push(a, &ev);
        return events_to_python(g, ev);
    }
};

// The network of a search (src/core/net.hpp), shared by every search it is handed to.
struct NetHandle {
    std::shared_ptr<const Net> net;
};

using F32R = nb::ndarray<const float, nb::c_contig, nb::device::cpu>;

std::vector<Layer> layers_of(const std::vector<std::pair<F32R, F32R>>& pairs) {
    std::vector<Layer> out;
    for (const auto& [w, b] : pairs) {
        if (w.ndim() != 2 || b.ndim() != 1) throw nb::value_error("network: a layer is (weights 2-D, biases 1-D)");
        Layer L;
        L.in = (int)w.shape(0), L.out = (int)w.shape(1);
        L.w.assign(w.data(), w.data() + w.size());
        L.b.assign(b.data(), b.data() + b.size());
        out.push_back(std::move(L));
    }
    return out;
}

// Raised to Python as these classes; lordsofwar/core/_native.py turns them into the rules'
// errors with the reference engine's explanation.
nb::object illegal_type, hidden_type;

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "The compiled rules core of Lords of War (see docs/core.md).";
    illegal_type = nb::borrow(PyErr_NewException("lordsofwar.core._core.Illegal", PyExc_ValueError, nullptr));
    hidden_type = nb::borrow(PyErr_NewException("lordsofwar.core._core.Hidden", PyExc_ValueError, nullptr));
    m.attr("Illegal") = illegal_type;
    m.attr("Hidden") = hidden_type;
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const IllegalError& e) {
            PyErr_SetString(illegal_type.ptr(), e.what());
        } catch (const HiddenError& e) {
            PyErr_SetString(hidden_type.ptr(), e.what());
        }
    });

    nb::class_<Variant>(m, "Variant", "The rules variant as the core needs it (lordsofwar.rules.position.Variant).")
        .def(nb::init<>())
        .def_rw("intermediate", &Variant::intermediate)
        .def_rw("visible", &Variant::visible, "hands are visible")
        .def_rw("bordered", &Variant::bordered)
        .def_rw("units_to_win", &Variant::units_to_win)
        .def_rw("commands_to_win", &Variant::commands_to_win)
        .def_rw("no_progress_turns", &Variant::no_progress_turns);

    nb::class_<CardSpec>(m, "CardSpec", "One card as the core needs it; its traits come from the card data.")
        .def(nb::init<>())
        .def_rw("id", &CardSpec::id)
        .def_rw("cls", &CardSpec::cls, "the index of its class in lordsofwar.rules.cards.CLASSES")
        .def_rw("berserker", &CardSpec::berserker)
        .def_rw("cavalry", &CardSpec::cavalry)
        .def_rw("spear", &CardSpec::spear)
        .def_rw("support", &CardSpec::support)
        .def_rw("general", &CardSpec::general)
        .def_rw("command", &CardSpec::command)
        .def_rw("defence", &CardSpec::defence)
        .def_rw("attacks", &CardSpec::attacks, "(direction, value) in the card's order, directions 0-7 from F clockwise")
        .def_rw("damage", &CardSpec::damage, "ranged damage, 0 for none")
        .def_rw("targets", &CardSpec::targets, "(right, forward) of each target square")
        .def_rw("moves", &CardSpec::moves, "directions 0-7 from F clockwise");

    nb::class_<Cards>(m, "Cards")
        .def(
            "__init__",
            [](Cards* self, const std::vector<CardSpec>& specs) {
                for (const CardSpec& c : specs) {
                    if (c.cls < 0 || c.cls > 4) throw nb::value_error("CardSpec.cls: a class index 0-4");
                }
                new (self) Cards{std::make_shared<const CardTable>(specs)};
            },
            nb::arg("specs"), "The cards of one card set, in its order.")
        .def_prop_ro("shot_offsets", [](const Cards& c) { return c.table->shot_offsets; })
        .def("__len__", [](const Cards& c) { return c.table->ids.size(); });

    nb::class_<UnitRecord>(m, "UnitRecord", "One unit of a Record: where, which card, whose, and its turn state.")
        .def(nb::init<>())
        .def("__init__",
             [](UnitRecord* u, Sq square, int card, int owner, int flags, int shot_damage, Sq shot_target,
                bool has_target) {
                 new (u) UnitRecord{square, card, owner, flags, shot_damage, shot_target, has_target};
             },
             nb::arg("square"), nb::arg("card"), nb::arg("owner"), nb::arg("flags") = 0, nb::arg("shot_damage") = -1,
             nb::arg("shot_target") = 0, nb::arg("has_target") = false)
        .def_rw("square", &UnitRecord::square)
        .def_rw("card", &UnitRecord::card)
        .def_rw("owner", &UnitRecord::owner)
        .def_rw("flags", &UnitRecord::flags)
        .def_rw("shot_damage", &UnitRecord::shot_damage, "-1: none waiting")
        .def_rw("shot_target", &UnitRecord::shot_target)
        .def_rw("has_target", &UnitRecord::has_target);

    nb::class_<AdvanceRound>(m, "AdvanceRecord", "The berserker advance under way (position.AdvanceRound).")
        .def(nb::init<>())
        .def_rw("owners", &AdvanceRound::owners)
        .def_rw("candidates", &AdvanceRound::candidates, "(berserker's square, [squares it may take]) in order")
        .def_rw("taken", &AdvanceRound::taken)
        .def_rw("advanced", &AdvanceRound::advanced);

    nb::class_<Record>(m, "Record",
                       "A position by name (Game::load, Game::record): units in the order they were placed; "
                       "hands, decks (top first) and lost piles per player (index 0: player 1), -1 a hidden card.")
        .def(nb::init<>())
        .def_rw("turn", &Record::turn)
        .def_rw("to_move", &Record::to_move)
        .def_rw("quiet_turns", &Record::quiet_turns)
        .def_rw("units", &Record::units)
        .def_rw("hands", &Record::hands)
        .def_rw("decks", &Record::decks)
        .def_rw("lost", &Record::lost)
        .def_prop_rw(
            "result", [](const Record& r) { return record_result(r); },
            [](Record& r, std::optional<ResultTuple> t) { set_record_result(r, t); }, nb::arg("value").none(),
            "None while the game runs, else (winner, termination, count, player, threshold, ending).")
        .def_prop_rw(
            "phase", [](const Record& r) { return (int)r.phase; },
            [](Record& r, int phase) {
                if (phase < PRE || phase > OVER) throw nb::value_error("phase: 0 to 3");
                r.phase = (Phase)phase;
            })
        .def_rw("generals_lost", &Record::generals_lost, "bit p: player p's general was eliminated this turn")
        .def_rw("eliminated", &Record::eliminated)
        .def_rw("forced", &Record::forced)
        .def_rw("in_turn", &Record::in_turn)
        .def_prop_rw(
            "advance",
            [](const Record& r) { return r.has_advance ? std::optional<AdvanceRound>(r.advance) : std::nullopt; },
            [](Record& r, std::optional<AdvanceRound> a) {
                r.has_advance = a.has_value();
                r.advance = a ? std::move(*a) : AdvanceRound();
            },
            nb::arg("value").none());

    nb::class_<GreedyHandle>(m, "GreedyParams", "The greedy bot's settings (src/core/greedy.hpp, GreedyParams).")
        .def(
            "__init__",
            [](GreedyHandle* h, std::vector<double> values, int fresh_arrow, double enemy_weight, int rollout_pushes,
               bool shortcuts) {
                new (h) GreedyHandle{std::make_shared<const GreedyParams>(GreedyParams{
                                         std::move(values), fresh_arrow, enemy_weight, rollout_pushes, shortcuts}),
                                     next_greedy_id++};
            },
            nb::arg("values"), nb::arg("fresh_arrow"), nb::arg("enemy_weight"), nb::arg("rollout_pushes"),
            nb::arg("shortcuts") = true,
            "``shortcuts`` false: every candidate is played (the same numbers, slower: what the tests compare with).");

    nb::class_<State>(m, "State")
        .def(nb::init<const Cards&, const Variant&>(), nb::arg("cards"), nb::arg("variant"))
        .def("clone", [](const State& s) { return State(s); })
        .def("load", [](State& s, const Record& r) { s.g.load(r); }, nb::arg("record"),
             "Set up the position of a Record (a fresh State only).")
        .def("record", [](const State& s) { return s.g.record(); }, "The position as a Record.")
        .def_prop_ro("over", [](const State& s) { return s.g.over(); })
        .def_prop_ro("winner", [](const State& s) { return s.g.winner(); })
        .def_prop_ro("result", [](const State& s) { return result_tuple(s.g); })
        .def_prop_ro("turn", [](const State& s) { return s.g.turn(); })
        .def_prop_ro("to_move", [](const State& s) { return s.g.to_move(); })
        .def_prop_ro("decider", [](const State& s) { return s.g.decider(); })
        .def_prop_ro("phase", [](const State& s) { return (int)s.g.phase(); })
        .def("legal",
             [](State& s) {
                 nb::list out;
                 for (const Action& a : s.legal()) out.append(s.g.action_to_string(a));
                 return out;
             })
        .def("apply",
             [](State& s, int kind, int card, Sq from, Sq to) {
                 return s.run(Action{(uint8_t)kind, (int16_t)card, from, to});
             })
        .def(
            "shown_after",
            [](State& s, int kind, int card, Sq from, Sq to, std::vector<int16_t> known) {
                s.g.resolve_start();
                note_shown(s.g, Action{(uint8_t)kind, (int16_t)card, from, to}, known);
                return known;
            },
            "What the other player has seen of the decider's hand once this action is played, from "
            "``known`` before it (note_shown in src/core/search.hpp); the game is not changed.")
        .def("num_actions", [](const State& s, int w, int h) { return s.frame(w, h).num_actions(); })
        .def("legal_ids",
             [](State& s, int w, int h) {
                 Frame f = s.frame(w, h);
                 std::vector<int> ids;
                 for (const Action& a : s.legal()) {
                     int id = encode(s.g, f, a);
                     if (id < 0) throw nb::index_error(("outside the frame: " + s.g.action_to_string(a)).c_str());
                     ids.push_back(id);
                 }
                 std::sort(ids.begin(), ids.end());
                 return ids;
             })
        .def(
            "decode",
            [](const State& s, int id, int w, int h) -> nb::object {
                Action a;
                if (!decode(s.g, s.frame(w, h), id, a)) return nb::none();
                return nb::make_tuple((int)a.kind, (int)a.card, a.from, a.to, s.g.action_to_string(a));
            },
            "The action an id names here, as (kind, card, from, to, text), or None when it names none.")
        .def("encode",
             [](const State& s, int kind, int card, Sq from, Sq to, int w, int h) {
                 return encode(s.g, s.frame(w, h), Action{(uint8_t)kind, (int16_t)card, from, to});
             })
        .def("apply_id",
             [](State& s, int id, int w, int h) {
                 Action a;
                 if (!decode(s.g, s.frame(w, h), id, a)) throw IllegalError("no action has this id here");
                 s.push(a, nullptr);
             })
        .def("resolve", [](State& s) { s.g.resolve_start(); },
             "Settle the start of the turn as the first legal listing does (3.4).")
        .def_prop_ro("hidden",
                     [](const State& s) {
                         auto count = [](const std::vector<int16_t>& v) { return (int)std::count(v.begin(), v.end(), -1); };
                         const Game& g = s.g;
                         return nb::make_tuple(count(g.hand(1)), count(g.deck(1)), count(g.hand(2)), count(g.deck(2)));
                     },
                     "The unknown cards: (player 1's hand, deck, player 2's hand, deck).")
        .def("observe",
             [](const State& s, U8 planes, F32 info, int w, int h) {
                 Frame f = s.frame(w, h);
                 if (planes.size() != (size_t)PLANES * f.n() || info.size() != (size_t)INFO)
                     throw nb::value_error("buffers of the wrong size for this frame");
                 observe(s.g, f, planes.data(), info.data());
             })
        .def("observe_into",
             [](State& s, F32 out, I8 mask, int w, int h) {
                 // One call per decision for the RL environments: the legal ids (listing them
                 // settles the start of the turn), then the planes as floats and the info.
                 Frame f = s.frame(w, h);
                 const size_t n = (size_t)PLANES * f.n();
                 if (out.size() != n + (size_t)INFO || mask.size() != (size_t)f.num_actions())
                     throw nb::value_error("buffers of the wrong size for this frame");
                 int missing = 0;
                 int count = write_mask(s.g, f, reinterpret_cast<uint8_t*>(mask.data()), s.buf, missing);
                 thread_local std::vector<uint8_t> planes;
                 planes.resize(n);
                 observe(s.g, f, planes.data(), out.data() + n);
                 float* o = out.data();
                 for (size_t i = 0; i < n; ++i) o[i] = planes[i];
                 return count;
             })
        .def("mask",
             [](State& s, U8 mask, int w, int h) {
                 Frame f = s.frame(w, h);
                 if (mask.size() != (size_t)f.num_actions()) throw nb::value_error("a mask of the wrong size");
                 int missing = 0;
                 write_mask(s.g, f, mask.data(), s.buf, missing);
                 return missing;
             })
        .def("frame",
             [](const State& s, int w, int h) {
                 Frame f = s.frame(w, h);
                 return nb::make_tuple(f.ox, f.oy, f.w, f.h, f.player);
             })
        .def(
            "playout",
            [](State& s, uint64_t seed, int policy, int max_turns) {
                Rng rng(seed);
                return playout(s.g, rng, policy, max_turns, s.buf);
            },
            nb::arg("seed"), nb::arg("policy") = 0, nb::arg("max_turns") = -1)
        .def(
            "search",
            [](const State& s, int iterations, double seconds, uint64_t seed, double explore, int playout_turns,
               int policy, double scale, int widen, bool relative, std::vector<float> value, std::vector<int16_t> pool1,
               std::vector<int16_t> pool2, const NetHandle* net, double c_puct, double mix, double hit_prior,
               const GreedyHandle* greedy, int prior_visits) {
                SearchSpec spec;
                if (net) {
                    if (!(c_puct > 0) || !(mix >= 0 && mix <= 1) || !(hit_prior >= 0) || prior_visits < 0)
                        throw nb::value_error("search: c_puct above 0, mix from 0 to 1, hit_prior and prior_visits 0 or more");
                    if (s.frame(net->net->width(), net->net->height()).num_actions() != net->net->num_actions())
                        throw nb::value_error("search: the network's action ids are not this game's");
                    spec.net = net->net, spec.c_puct = c_puct, spec.mix = mix, spec.hit_prior = hit_prior;
                    spec.prior_visits = prior_visits;
                }
                if (greedy) spec.greedy = greedy->params;
                spec.iterations = iterations, spec.seconds = seconds, spec.seed = seed, spec.explore = explore;
                spec.playout_turns = playout_turns, spec.policy = policy, spec.scale = scale, spec.widen = widen;
                spec.relative = relative;
                spec.value = std::move(value);
                spec.pool[1] = std::move(pool1), spec.pool[2] = std::move(pool2);
                int n = (int)s.g.cards().ids.size();
                for (int p = 1; p <= 2; ++p) {
                    for (int16_t c : spec.pool[p]) {
                        if (c < 0 || c >= n) throw nb::value_error("search: a pool names a card not in the card set");
                    }
                }
                SearchOut found;
                {
                    nb::gil_scoped_release release;
                    try {
                        found = search(s.g, spec);
                    } catch (const std::invalid_argument& e) {
                        nb::gil_scoped_acquire again;
                        throw nb::value_error(e.what());
                    }
                }
                nb::list root;
                for (const RootStat& r : found.root) {
                    const Action& a = r.action;
                    root.append(nb::make_tuple(s.g.action_to_string(a), r.visits, r.mean));
                }
                return nb::make_tuple(root, found.iterations, found.nodes, found.seconds);
            },
            nb::arg("iterations"), nb::arg("seconds"), nb::arg("seed"), nb::arg("explore"), nb::arg("playout_turns"),
            nb::arg("policy"), nb::arg("scale"), nb::arg("widen"), nb::arg("relative"), nb::arg("value"), nb::arg("pool1"),
            nb::arg("pool2"), nb::arg("net").none() = nb::none(), nb::arg("c_puct") = 1.5, nb::arg("mix") = 0.0, nb::arg("hit_prior") = 0.0,
            nb::arg("greedy").none() = nb::none(), nb::arg("prior_visits") = 0,
            "Information-set MCTS from this view for its decider (src/core/search.hpp): per legal action "
            "(text, visits, mean result for the decider), then iterations, nodes, seconds; ``greedy``: the greedy "
            "bot's settings, for a network with an action head.")
        .def(
            "greedy",
            [](State& s, const GreedyHandle& h, uint64_t seed) {
                if (h.params->values.size() != s.g.cards().ids.size())
                    throw nb::value_error("greedy: one value per card");
                if (s.g.over()) throw nb::value_error("greedy: the game is over");
                Greedy& bot = thread_bot(h, s.g);
                Rng rng(seed);
                Action a;
                {
                    nb::gil_scoped_release release;
                    a = bot.choose(s.g, rng);
                }
                return s.g.action_to_string(a);
            },
            nb::arg("bot"), nb::arg("seed"),
            "The greedy bot's action for the decider (src/core/greedy.hpp), as notation text.")
        .def(
            "greedy_scores",
            [](State& s, const GreedyHandle& h) {
                if (h.params->values.size() != s.g.cards().ids.size())
                    throw nb::value_error("greedy: one value per card");
                Greedy& bot = thread_bot(h, s.g);
                std::vector<Action> actions;
                std::vector<GreedyScore> scores;
                bot.evaluate_all(s.g, actions, scores);
                nb::list out;
                for (size_t i = 0; i < actions.size(); ++i) {
                    out.append(nb::make_tuple(s.g.action_to_string(actions[i]), scores[i].score, scores[i].preference,
                                              scores[i].exposure));
                }
                return out;
            },
            nb::arg("bot"), "The greedy bot's judgement of every legal action: (text, score, preference, exposure).")
        .def("evaluate",
             [](const State& s, std::vector<float> value, double scale) {
                 SearchSpec spec;
                 spec.value = std::move(value), spec.scale = scale;
                 return evaluate(s.g, spec);
             },
             "The search's judgement of this position: player 1's win probability.");

    nb::class_<NetHandle>(m, "Net", "A policy/value network for the search (src/core/net.hpp).")
        .def(
            "__init__",
            [](NetHandle* self, const std::vector<std::pair<F32R, F32R>>& policy,
               const std::vector<std::pair<F32R, F32R>>& value, int value_from, int width, int height,
               std::vector<float> scale, const std::vector<std::pair<F32R, F32R>>& action, int action_from,
               int features) {
                try {
                    new (self) NetHandle{std::make_shared<const Net>(layers_of(policy), layers_of(value), value_from,
                                                                     width, height, std::move(scale),
                                                                     layers_of(action), action_from, features)};
                } catch (const std::invalid_argument& e) {
                    throw nb::value_error(e.what());
                }
            },
            nb::arg("policy"), nb::arg("value"), nb::arg("value_from"), nb::arg("width"), nb::arg("height"),
            nb::arg("scale"), nb::arg("action") = std::vector<std::pair<F32R, F32R>>{}, nb::arg("action_from") = -1,
            nb::arg("features") = 0,
            "The layers as (weights (inputs, outputs), biases) float32 arrays, the frame, and 1 / divisor per "
            "observation number (lordsofwar.rl.config.observation_scale); a version 4 file's action head "
            "(aw0, ab0 and aw1, ab1), the policy layer it reads and its features per action.")
        .def_prop_ro("has_action_head", [](const NetHandle& n) { return n.net->has_action_head(); })
        .def_prop_ro("inputs", [](const NetHandle& n) { return n.net->inputs(); })
        .def_prop_ro("num_actions", [](const NetHandle& n) { return n.net->num_actions(); })
        .def(
            "observation",
            [](const NetHandle& n, State& s) {
                s.legal();  // settles the start of the turn, as an observation is taken
                std::vector<float> out((size_t)n.net->inputs());
                n.net->observation(s.g, out.data());
                return out;
            },
            "The scaled observation the network reads (flat_observation of the decider's observation).")
        .def(
            "evaluate",
            [](const NetHandle& n, State& s, int repeat, const GreedyHandle* greedy) {
                Frame f = s.frame(n.net->width(), n.net->height());
                if (f.num_actions() != n.net->num_actions())
                    throw nb::value_error("network: its action ids are not this game's");
                check_greedy(*n.net, greedy, s.g.cards(), "network");
                std::vector<Action> actions;
                std::vector<int> ids;
                std::vector<float> features;
                std::vector<Action> legal = s.legal();
                n.net->inputs(s.g, legal, greedy ? &thread_bot(*greedy, s.g) : nullptr, actions, ids, features);
                // ids ascending: an action head's inputs come so (with their features, row by row)
                if (!n.net->has_action_head()) std::sort(ids.begin(), ids.end());
                std::vector<float> logits(ids.size());
                float v = 0;
                const float* feats = features.empty() ? nullptr : features.data();
                auto start = std::chrono::steady_clock::now();
                {
                    nb::gil_scoped_release release;
                    for (int r = 0; r < std::max(repeat, 1); ++r)
                        v = n.net->evaluate(s.g, ids.data(), (int)ids.size(), logits.data(), feats);
                }
                double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                return nb::make_tuple(ids, logits, v, seconds / std::max(repeat, 1));
            },
            nb::arg("state"), nb::arg("repeat") = 1, nb::arg("greedy").none() = nb::none(),
            "(legal ids ascending, their logits (an action head's scores added: ``greedy``, the greedy bot's "
            "settings, is needed then), the value for the decider, seconds per evaluation over ``repeat`` runs).");

    m.attr("PLANES") = PLANES;
    m.attr("INFO") = INFO;
    m.attr("HAND_FEATURES") = HAND_FEATURES;

    nb::class_<Batch>(m, "Batch")
        .def(
            "__init__",
            [](Batch* self, const Cards& cards, std::vector<std::vector<int16_t>> decks, const Variant& v,
               int size, uint64_t seed, int width, int height) {
                if (size < 1) throw nb::value_error("size: at least one game");
                new (self) Batch(cards.table, v, std::move(decks), size, seed, width, height);
            },
            nb::arg("cards"), nb::arg("decks"), nb::arg("variant"), nb::arg("size"), nb::arg("seed"),
            nb::arg("width"), nb::arg("height"))
        .def_ro("size", &Batch::size)
        .def_ro("width", &Batch::width)
        .def_ro("height", &Batch::height)
        .def_ro("steps", &Batch::steps)
        .def_ro("episodes", &Batch::episodes)
        .def_ro("outside_frame", &Batch::outside_frame)
        .def_ro("opponent_steps", &Batch::opponent_steps)
        .def(
            "set_opponent",
            [](Batch& b, int kind, std::vector<int8_t> seats, std::vector<double> values, int fresh_arrow,
               double enemy_weight, int rollout_pushes, uint64_t seed) {
                try {
                    b.set_opponent(kind, std::move(seats),
                                   GreedyParams{std::move(values), fresh_arrow, enemy_weight, rollout_pushes}, seed);
                } catch (const std::invalid_argument& e) {
                    throw nb::value_error(e.what());
                }
            },
            nb::arg("kind"), nb::arg("seats"), nb::arg("values"), nb::arg("fresh_arrow"), nb::arg("enemy_weight"),
            nb::arg("rollout_pushes"), nb::arg("seed"),
            "The opponent inside reset and step (0 none, 1 random, 2 greedy, 3 the search of set_search) and the "
            "learner's seat per game.")
        .def(
            "set_search",
            [](Batch& b, int iterations, double explore, int playout_turns, int policy, double scale, int widen,
               bool relative, std::vector<float> value, const NetHandle* net, double c_puct, double mix,
               double hit_prior, const GreedyHandle* greedy, int prior_visits) {
                SearchSpec spec;
                if (net) {
                    if (!(c_puct > 0) || !(mix >= 0 && mix <= 1) || !(hit_prior >= 0) || prior_visits < 0)
                        throw nb::value_error("set_search: c_puct above 0, mix from 0 to 1, hit_prior and prior_visits 0 or more");
                    if (b.num_actions() != net->net->num_actions() || b.width != net->net->width() ||
                        b.height != net->net->height())
                        throw nb::value_error("set_search: the network's action ids are not this batch's");
                    spec.net = net->net, spec.c_puct = c_puct, spec.mix = mix, spec.hit_prior = hit_prior;
                    spec.prior_visits = prior_visits;
                    check_greedy(*net->net, greedy, *b.cards, "set_search");
                }
                if (greedy) spec.greedy = greedy->params;
                spec.iterations = iterations, spec.explore = explore, spec.playout_turns = playout_turns;
                spec.policy = policy, spec.scale = scale, spec.widen = widen, spec.relative = relative;
                spec.value = std::move(value);
                try {
                    b.set_search(spec);
                } catch (const std::invalid_argument& e) {
                    throw nb::value_error(e.what());
                }
            },
            nb::arg("iterations"), nb::arg("explore"), nb::arg("playout_turns"), nb::arg("policy"), nb::arg("scale"),
            nb::arg("widen"), nb::arg("relative"), nb::arg("value"), nb::arg("net").none() = nb::none(),
            nb::arg("c_puct") = 1.5, nb::arg("mix") = 0.0, nb::arg("hit_prior") = 0.0,
            nb::arg("greedy").none() = nb::none(), nb::arg("prior_visits") = 0,
            "The search opponent's settings (kind 3 of set_opponent): its iteration cap ends every search; "
            "``greedy``: the greedy bot's settings, for a network with an action head.")
        .def(
            "greedy_scores",
            [](Batch& b, std::vector<double> values, int fresh_arrow, double enemy_weight, int rollout_pushes,
               I32W ids, F32 raw, nb::ndarray<int64_t, nb::c_contig, nb::device::cpu> ptr) {
                if (values.size() != b.cards->ids.size()) throw nb::value_error("greedy: one value per card");
                if (ptr.size() != (size_t)b.size + 1 || raw.size() != 3 * ids.size())
                    throw nb::value_error("greedy_scores: ptr holds size + 1 entries, raw three per id");
                Greedy bot(GreedyParams{std::move(values), fresh_arrow, enemy_weight, rollout_pushes});
                long n;
                {
                    nb::gil_scoped_release release;
                    n = b.greedy_scores(bot, ids.data(), raw.data(), ptr.data(), (long)ids.size());
                }
                if (n < 0) throw nb::value_error("greedy_scores: the buffers are too small for the legal actions");
                return n;
            },
            nb::arg("values"), nb::arg("fresh_arrow"), nb::arg("enemy_weight"), nb::arg("rollout_pushes"),
            nb::arg("ids"), nb::arg("raw"), nb::arg("ptr"),
            "The greedy bot's (score, preference, exposure) of every legal id of every game, for its decider, "
            "ids ascending per game (game b's in ptr[b] .. ptr[b + 1]); returns how many.")
        .def(
            "opponent_view",
            [](const Batch& b, int i, uint64_t seed) {
                if (i < 0 || i >= b.size) throw nb::index_error("no such game in the batch");
                if (b.opponent == NO_OPPONENT) throw nb::value_error("this batch has no opponent");
                State s(Cards{b.cards}, b.v);
                std::vector<int16_t> pool[3];
                b.opponent_view(i, seed, s.g, pool);
                return nb::make_tuple(s, pool[1], pool[2], b.shown[(size_t)i]);
            },
            nb::arg("i"), nb::arg("seed"),
            "What game ``i``'s opponent would search from now: its view as a State, the pools of players 1 "
            "and 2, and the learner's hand cards it has seen.")
        .def_prop_ro("num_actions", &Batch::num_actions)
        .def("reset",
             [](Batch& b, U8 planes, F32 info, U8 mask, I8 to_play) {
                 check_buffers(b, planes, info, mask, to_play);
                 nb::gil_scoped_release release;
                 b.reset(planes.data(), info.data(), mask.data(), to_play.data());
             })
        .def("step",
             [](Batch& b, I32 actions, U8 planes, F32 info, U8 mask, I8 to_play, F32 rewards, U8 done,
                U8 truncated) {
                 check_buffers(b, planes, info, mask, to_play);
                 size_t n = (size_t)b.size;
                 if (actions.size() != n || rewards.size() != 2 * n || done.size() != n || truncated.size() != n)
                     throw nb::value_error("actions, done and truncated hold one entry per game, rewards two");
                 int bad;
                 {
                     nb::gil_scoped_release release;
                     bad = b.step(actions.data(), planes.data(), info.data(), mask.data(), to_play.data(),
                                  rewards.data(), done.data(), truncated.data());
                 }
                 return bad;
             })
        .def("sample",
             [](Batch& b, U8 mask, I32W actions) {
                 if (mask.size() != (size_t)b.size * b.num_actions() || actions.size() != (size_t)b.size)
                     throw nb::value_error("buffers of the wrong size for this batch");
                 nb::gil_scoped_release release;
                 b.sample(mask.data(), actions.data());
             })
        .def(
            "game", [](const Batch& b, int i) {
                if (i < 0 || i >= b.size) throw nb::index_error("no such game in the batch");
                State s(Cards{b.cards}, b.games[i].variant());
                s.g = b.games[i];
                return s;
            },
            "A copy of game ``i`` as a State.")
        .def(
            "finished", [](const Batch& b, int i) -> std::optional<State> {
                if (i < 0 || i >= b.size) throw nb::index_error("no such game in the batch");
                if (!b.has_finished[(size_t)i]) return std::nullopt;
                State s(Cards{b.cards}, b.finished[(size_t)i].variant());
                s.g = b.finished[(size_t)i];
                return s;
            },
            "A copy of the last game that ended in slot ``i`` (as it ended) as a State; None before any.")
        .def(
            "finished_result",
            [](const Batch& b, int i) -> std::optional<ResultTuple> {
                if (i < 0 || i >= b.size) throw nb::index_error("no such game in the batch");
                const Game& g = b.finished[(size_t)i];
                if (!b.has_finished[(size_t)i] || !g.over()) return std::nullopt;
                const Outcome& o = g.outcome();
                return ResultTuple{g.winner(), o.termination, o.count, o.player, o.threshold, o.ending};
            },
            nb::arg("i"),
            "The result tuple of the last game that ended in slot ``i`` (None before any, or when it was cut "
            "short).")
        .def(
            "observe_finished",
            [](const Batch& b, I32 rows, nb::ndarray<const int8_t, nb::c_contig, nb::device::cpu> players, U8 planes,
               F32 info) {
                const size_t k = rows.size();
                const size_t n = (size_t)PLANES * b.width * b.height;
                if (players.size() != k || planes.size() != k * n || info.size() != k * (size_t)INFO)
                    throw nb::value_error("observe_finished: one player per row, planes and info for each row");
                for (size_t r = 0; r < k; ++r) {
                    int i = rows.data()[r], p = players.data()[r];
                    if (i < 0 || i >= b.size) throw nb::index_error("no such game in the batch");
                    if (!b.has_finished[(size_t)i]) throw nb::value_error("observe_finished: no game ended there yet");
                    if (p != 1 && p != 2) throw nb::value_error("observe_finished: players are 1 or 2");
                }
                nb::gil_scoped_release release;
                for (size_t r = 0; r < k; ++r)
                    b.observe_finished(rows.data()[r], players.data()[r], planes.data() + r * n, info.data() + r * INFO);
            },
            nb::arg("rows"), nb::arg("players"), nb::arg("planes"), nb::arg("info"),
            "The observation of each row's finished game from its player's side, written into planes and info.");

    m.def(
        "scale_observations",
        [](nb::ndarray<const uint8_t, nb::c_contig, nb::device::cpu> planes, F32R info, F32R scale, F32 out) {
            // lordsofwar.rl.config.normalise of raw_observation(planes, info), row by row (batch.hpp).
            const size_t rows = out.ndim() == 2 ? out.shape(0) : 0;
            const size_t width = out.ndim() == 2 ? out.shape(1) : 0;
            const size_t info_n = info.ndim() == 2 ? info.shape(1) : 0;
            if (out.ndim() != 2 || info.ndim() != 2 || info.shape(0) != rows || info_n > width ||
                planes.size() != rows * (width - info_n) || scale.size() != width)
                throw nb::value_error(
                    "scale_observations: planes (rows, P...), info (rows, I), scale (P + I) and out (rows, P + I)");
            nb::gil_scoped_release release;
            low::scale_observations(planes.data(), info.data(), scale.data(), out.data(), rows, width - info_n, info_n);
        },
        nb::arg("planes"), nb::arg("info"), nb::arg("scale"), nb::arg("out"),
        "The RL observation of each row, scaled to [0, 1] (lordsofwar.rl.config.normalise of the raw numbers), "
        "written into out.");

    m.def(
        "time_actions",
        [](const Cards& cards, const std::vector<std::vector<int16_t>>& decks, const Variant& v, int samples,
           uint64_t seed) {
            // Decision points met in random games; then one legal listing and one application
            // timed on a fresh copy of each (what the copy cached at that point, it keeps).
            const Variant& var = v;
            Rng rng(seed);
            std::vector<Game> points;
            std::vector<Action> chosen, buf;
            points.reserve(samples);
            while ((int)points.size() < samples) {
                Game g(cards.table, var);
                deal(g, decks[rng.below((uint32_t)decks.size())], decks[rng.below((uint32_t)decks.size())], rng);
                while (!g.over() && (int)points.size() < samples) {
                    points.push_back(g);
                    g.legal(buf);
                    Action a = buf[rng.below((uint32_t)buf.size())];
                    chosen.push_back(a);
                    g.push(a, nullptr);
                }
            }
            std::vector<long> listing, applying;
            long listed = 0;
            {
                nb::gil_scoped_release release;
                using clock = std::chrono::steady_clock;
                for (size_t i = 0; i < points.size(); ++i) {
                    Game g = points[i];
                    auto t0 = clock::now();
                    g.legal(buf);
                    auto t1 = clock::now();
                    g.push(chosen[i], nullptr);
                    auto t2 = clock::now();
                    listed += (long)buf.size();
                    listing.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
                    applying.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t2 - t1).count());
                }
            }
            return nb::make_tuple(listing, applying, listed, sizeof(Game));
        },
        nb::arg("cards"), nb::arg("decks"), nb::arg("variant"), nb::arg("samples"), nb::arg("seed"),
        "Time legal listings and applications at decision points of random games: (listing ns, apply ns, "
        "actions listed, bytes of a Game object).");

    m.def(
        "random_games",
        [](const Cards& cards, const std::vector<std::vector<int16_t>>& decks, const Variant& v, int games,
           double seconds, uint64_t seed) {
            const Variant& var = v;
            Rng rng(seed);
            std::vector<Action> buf;
            buf.reserve(256);
            long actions = 0, turns = 0;
            int played = 0;
            auto start = std::chrono::steady_clock::now();
            double elapsed = 0;
            {
                nb::gil_scoped_release release;
                while (played < games || elapsed < seconds) {
                    Game g(cards.table, var);
                    const auto& d1 = decks[rng.below((uint32_t)decks.size())];
                    const auto& d2 = decks[rng.below((uint32_t)decks.size())];
                    deal(g, d1, d2, rng);
                    actions += playout(g, rng, UNIFORM, -1, buf);
                    turns += g.turn();
                    ++played;
                    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                }
            }
            return nb::make_tuple(played, actions, turns, elapsed);
        },
        nb::arg("cards"), nb::arg("decks"), nb::arg("variant"), nb::arg("games"), nb::arg("seconds"), nb::arg("seed"),
        "Play uniformly random games from random deals of the given decks: (games, actions, turns, seconds).");

}

#include "net.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace low {

namespace {

// The two kernels are built twice on x86-64 Linux (GCC or Clang): for AVX2 with FMA and for the
// baseline; the loader picks the one the processor runs (about twice as fast where AVX2 is).
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#define LOW_KERNEL __attribute__((target_clones("arch=x86-64-v3", "default"))) __attribute__((noinline))
#else
#define LOW_KERNEL inline
#endif

// y += a * x over n floats: the loop -O3 vectorises (every layer is a sum of weight rows).
LOW_KERNEL void axpy(float a, const float* __restrict x, float* __restrict y, int n) {
    for (int j = 0; j < n; ++j) y[j] += a * x[j];
}

// x . y in eight running sums, so that the compiler may vectorise it without reassociating.
LOW_KERNEL float dot(const float* __restrict x, const float* __restrict y, int n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        for (int k = 0; k < 8; ++k) acc[k] += x[j + k] * y[j + k];
    }
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; j < n; ++j) s += x[j] * y[j];
    return s;
}

inline void relu(std::vector<float>& h) {
    for (float& v : h) v = v > 0 ? v : 0;
}

// One dense layer: out = b + in @ w, skipping the zero inputs (most are, after a ReLU).
void dense(const Layer& L, const float* in, std::vector<float>& out) {
    out.assign(L.b.begin(), L.b.end());
    for (int i = 0; i < L.in; ++i) {
        if (in[i] != 0) axpy(in[i], &L.w[(size_t)i * L.out], out.data(), L.out);
    }
}

// Subnormal weights (below FLT_MIN in size; weight decay leaves hundreds of thousands in a trained
// network) set to 0: they change no float result, and on many processors a multiply-add that
// meets one takes a hundred times longer (the shipped network evaluated 28 times slower).
// lordsofwar.bots.policy flushes them alike, so the two forward passes read the same weights.
void flush_subnormals(std::vector<Layer>& layers) {
    for (Layer& L : layers) {
        for (float& v : L.w) v = std::fabs(v) < std::numeric_limits<float>::min() ? 0.0f : v;
        for (float& v : L.b) v = std::fabs(v) < std::numeric_limits<float>::min() ? 0.0f : v;
    }
}

void check_layer(const Layer& L, const std::string& name) {
    if (L.in < 1 || L.out < 1 || L.w.size() != (size_t)L.in * L.out || L.b.size() != (size_t)L.out)
        throw std::invalid_argument("network: layer " + name + " is malformed");
}

}  // namespace

Net::Net(std::vector<Layer> policy, std::vector<Layer> value, int value_from, int width, int height,
         std::vector<float> scale, std::vector<Layer> action, int action_from, int features)
    : policy_(std::move(policy)),
      value_(std::move(value)),
      action_(std::move(action)),
      action_from_(action_from),
      features_(features),
      value_from_(value_from),
      width_(width),
      height_(height),
      scale_(std::move(scale)) {
    flush_subnormals(policy_), flush_subnormals(value_), flush_subnormals(action_);
    if (policy_.size() < 2) throw std::invalid_argument("network: the policy needs a hidden layer and an output layer");
    if (value_.empty()) throw std::invalid_argument("network: no value head");
    if (width < 1 || height < 1) throw std::invalid_argument("network: a frame of at least one square");
    for (size_t i = 0; i < policy_.size(); ++i) {
        check_layer(policy_[i], "w" + std::to_string(i));
        if (i && policy_[i].in != policy_[i - 1].out)
            throw std::invalid_argument("network: layer w" + std::to_string(i) + " does not follow w" + std::to_string(i - 1));
    }
    if (value_from < 0 || value_from + 1 >= (int)policy_.size())
        throw std::invalid_argument("network: value_from must name a hidden layer (0 to " +
                                    std::to_string(policy_.size() - 2) + ")");
    for (size_t i = 0; i < value_.size(); ++i) {
        check_layer(value_[i], "vw" + std::to_string(i));
        int wanted = i ? value_[i - 1].out : policy_[value_from].out;
        if (value_[i].in != wanted)
            throw std::invalid_argument("network: value layer vw" + std::to_string(i) + " does not follow its input");
    }
    if (value_.back().out != 1) throw std::invalid_argument("network: the value head must end in one output");
    if (!action_.empty()) {
        if (action_.size() != 2) throw std::invalid_argument("network: the action head has two layers");
        if (action_from < 0 || action_from + 1 >= (int)policy_.size())
            throw std::invalid_argument("network: action_from must name a hidden layer");
        if (features != GREEDY_FEATURES)
            throw std::invalid_argument("network: the action head reads " + std::to_string(GREEDY_FEATURES) +
                                        " features per action");
        check_layer(action_[0], "aw0");
        check_layer(action_[1], "aw1");
        if (action_[0].in != features + policy_[action_from].out || action_[1].in != action_[0].out ||
            action_[1].out != 1)
            throw std::invalid_argument("network: the action head's layers do not chain");
    } else {
        action_from_ = -1, features_ = 0;
    }
    const int n = PLANES * width * height;
    if (policy_[0].in != n + INFO)
        throw std::invalid_argument("network: its first layer reads " + std::to_string(policy_[0].in) + " numbers, a " +
                                    std::to_string(width) + " x " + std::to_string(height) + " frame's observation has " +
                                    std::to_string(n + INFO));
    if (scale_.size() != (size_t)(n + INFO)) throw std::invalid_argument("network: one scale per observation number");
    clip_.assign(scale_.size(), 1);
    for (int i = 0; i < n; ++i) clip_[i] = scale_[i] != 1.0f;  // planes of 0 or 1: capping them at 1 changes nothing
    const Layer& last = policy_.back();
    last_t_.resize((size_t)last.in * last.out);
    for (int i = 0; i < last.in; ++i) {
        for (int j = 0; j < last.out; ++j) last_t_[(size_t)j * last.in + i] = last.w[(size_t)i * last.out + j];
    }
}

void Net::inputs(Game& g, const std::vector<Action>& legal, Greedy* greedy, std::vector<Action>& actions,
                 std::vector<int>& ids, std::vector<float>& features) const {
    Frame f = frame_of(g, width_, height_);
    actions.clear(), ids.clear(), features.clear();
    if (action_.empty()) {
        for (const Action& a : legal) {
            int id = encode(g, f, a);
            if (id >= 0) actions.push_back(a), ids.push_back(id);
        }
        return;
    }
    if (!greedy) throw std::invalid_argument("network: its action head needs the greedy bot's judgement");
    thread_local std::vector<Action> judged;
    thread_local std::vector<GreedyScore> scores;
    thread_local std::vector<std::pair<int, int>> by_id;  // (id, index in judged)
    thread_local std::vector<float> raw;
    greedy->evaluate_all(g, judged, scores);  // g's listing, as ``legal``
    by_id.clear();
    for (size_t i = 0; i < judged.size(); ++i) {
        int id = encode(g, f, judged[i]);
        if (id >= 0) by_id.emplace_back(id, (int)i);
    }
    std::sort(by_id.begin(), by_id.end());
    raw.clear();
    for (auto [id, i] : by_id) {
        const GreedyScore& s = scores[(size_t)i];
        actions.push_back(judged[(size_t)i]), ids.push_back(id);
        raw.insert(raw.end(), {(float)s.score, (float)s.preference, (float)s.exposure});  // float32, as the Python side keeps them
    }
    features.resize(ids.size() * GREEDY_FEATURES);
    greedy_features(raw.data(), (int)ids.size(), features.data());
}

void Net::observation(const Game& g, float* out) const {
    const int n = PLANES * width_ * height_;
    thread_local std::vector<uint8_t> planes;
    planes.resize((size_t)n);
    Frame f = frame_of(g, width_, height_);
    observe(g, f, planes.data(), out + n);
    for (int i = 0; i < n; ++i) out[i] = planes[i];
    for (int i = 0; i < n + INFO; ++i) {
        if (clip_[i] || i >= n) out[i] = std::min(std::max(out[i] * scale_[i], 0.0f), 1.0f);
    }
}

float Net::evaluate(const Game& g, const int* ids, int n_ids, float* logits, const float* features) const {
    const int n = PLANES * width_ * height_;
    thread_local std::vector<uint8_t> planes;
    thread_local std::vector<std::vector<float>> acts;
    thread_local std::vector<float> va, vb;
    planes.resize((size_t)n);
    float info[INFO];
    Frame f = frame_of(g, width_, height_);
    if (f.num_actions() != num_actions())
        throw std::invalid_argument("network: it has " + std::to_string(num_actions()) + " action ids, this game " +
                                    std::to_string(f.num_actions()));
    observe(g, f, planes.data(), info);
    const size_t hidden = policy_.size() - 1;
    acts.resize(hidden);
    // The first layer sums the rows of the non-zero inputs only: most of the planes are zero.
    const Layer& first = policy_[0];
    std::vector<float>& h0 = acts[0];
    h0.assign(first.b.begin(), first.b.end());
    for (int i = 0; i < n; ++i) {
        if (!planes[i]) continue;
        float v = planes[i];
        if (clip_[i]) v = std::min(v * scale_[i], 1.0f);
        axpy(v, &first.w[(size_t)i * first.out], h0.data(), first.out);
    }
    for (int j = 0; j < INFO; ++j) {
        float v = std::min(std::max(info[j] * scale_[n + j], 0.0f), 1.0f);
        if (v != 0) axpy(v, &first.w[(size_t)(n + j) * first.out], h0.data(), first.out);
    }
    relu(h0);
    for (size_t i = 1; i < hidden; ++i) {
        dense(policy_[i], acts[i - 1].data(), acts[i]);
        relu(acts[i]);
    }
    const Layer& last = policy_.back();
    const float* top = acts[hidden - 1].data();
    for (int k = 0; k < n_ids; ++k) logits[k] = last.b[ids[k]] + dot(&last_t_[(size_t)ids[k] * last.in], top, last.in);
    if (!action_.empty() && n_ids > 0) {
        if (!features) throw std::invalid_argument("network: its action head needs the actions' features");
        // The hidden activation's share of the first layer, once: ab0 + h @ aw0[features:].
        thread_local std::vector<float> shared, t;
        const Layer& a0 = action_[0];
        const Layer& a1 = action_[1];
        const float* h = acts[(size_t)action_from_].data();
        shared.assign(a0.b.begin(), a0.b.end());
        for (int i = 0; i < a0.in - features_; ++i) {
            if (h[i] != 0) axpy(h[i], &a0.w[(size_t)(features_ + i) * a0.out], shared.data(), a0.out);
        }
        for (int k = 0; k < n_ids; ++k) {
            t.assign(shared.begin(), shared.end());
            const float* f = features + (size_t)k * features_;
            for (int i = 0; i < features_; ++i) {
                if (f[i] != 0) axpy(f[i], &a0.w[(size_t)i * a0.out], t.data(), a0.out);
            }
            relu(t);
            logits[k] += a1.b[0] + dot(t.data(), a1.w.data(), a1.in);
        }
    }
    // The value head, from its hidden layer: ReLU between its layers, tanh of its one output.
    const float* x = acts[value_from_].data();
    std::vector<float>* buf[2] = {&va, &vb};
    for (size_t i = 0; i + 1 < value_.size(); ++i) {
        std::vector<float>& y = *buf[i % 2];
        dense(value_[i], x, y);
        relu(y);
        x = y.data();
    }
    const Layer& out = value_.back();
    return std::tanh(out.b[0] + dot(out.w.data(), x, out.in));
}

}  // namespace low

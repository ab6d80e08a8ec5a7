// GEMMs whose weight rows are not 16-byte aligned (measurements/h100_alignment_probe.json, kernel_probe.py section
// "align"): cuBLAS runs its narrow-load fallback kernels, and a 124M GPT trains 45 % slower at GPT-2's 50257-token
// vocabulary than at nanoGPT's padded 50304. The H100 table caps such GEMMs; Megatron pads the vocabulary itself.
#include "core/cost/report/explain.h"
#include "core/cost/kernels/framework.h"
#include "core/cost/kernels/kernels.h"
#include "core/model/errors.h"
#include "core/model/hardware.h"
#include "tests/test_scenarios.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

namespace {

nlohmann::json alignment_probe() {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/measurements/h100_alignment_probe.json");
    REQUIRE(file.good());
    return nlohmann::json::parse(file);
}

const core::GpuSpec& gpu(const char* id) {
    const core::GpuSpec* spec = core::builtin_hardware().find_gpu(id);
    REQUIRE(spec != nullptr);
    return *spec;
}

// One bf16 GEMM as the kernel builder makes it: tokens are m, or k in a weight gradient.
core::Kernel gemm(core::KernelPass pass, double m, double n, double k) { return core_tests::gemm_kernel(pass, m, n, k); }

// The three GEMMs of a logits layer (x W^T, dY W, dY^T X) for this many tokens, this hidden size and vocabulary.
double logits_seconds(const core::GpuSpec& spec, double tokens, double hidden, double vocab) {
    const core::FrameworkTraits traits;
    double seconds = 0;
    for (core::Kernel kernel : {gemm(core::KernelPass::forward, tokens, vocab, hidden), gemm(core::KernelPass::backward_input, tokens, hidden, vocab),
                                gemm(core::KernelPass::backward_weight, hidden, vocab, tokens)}) {
        core::time_kernel(kernel, spec, traits);
        seconds += kernel.seconds;
    }
    return seconds;
}

// The probe's GPT (LayerNorm, biases, GeLU 4h, learned positions, untied head), one H100, eager AMP, SDPA.
core::Scenario probe_gpt(int layers, int hidden, int heads, int vocab, int seq, int batch) {
    return core_tests::probe_scenario({layers, hidden, heads, vocab, seq, batch, true, false, false, false, 0, 0, 0}, core::Recompute::none);
}

}  // namespace

TEST_CASE("GEMM alignment: the rows of a GEMM's weight-side dimensions, in bf16 bytes up to 16; the tokens never count",
          "[kernels][alignment]") {
    using core::KernelPass;
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::forward, 8192, 50257, 768)) == 2);         // GPT-2's vocabulary
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::backward_input, 8192, 768, 50257)) == 2);
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::backward_weight, 768, 50257, 8192)) == 2);
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::forward, 8192, 50304, 768)) == 16);        // nanoGPT's padding
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::forward, 8192, 50258, 1024)) == 4);
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::forward, 8192, 3072, 1020)) == 8);
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::forward, 8191, 3072, 1024)) == 16);        // odd token count: a row count
    REQUIRE(core::gemm_alignment_bytes(gemm(KernelPass::backward_weight, 1024, 3072, 8191)) == 16);  // a reduction
}

TEST_CASE("h100_alignment_probe.json: each measured shape's three logits GEMMs (forward, input and weight gradient) within 12 % "
          "at 50257, 50258, 50260 and 50304 tokens of vocabulary; at 50257 they take 5.6-5.8x as long as at 50304, modelled within 12 %",
          "[kernels][alignment][measured]") {
    const nlohmann::json probe = alignment_probe();
    const core::GpuSpec& h100 = gpu("h100-sxm");
    struct Shape {
        double tokens, hidden, vocab, measured_seconds = 0;
    };
    std::vector<Shape> shapes;
    for (const nlohmann::json& row : probe["gemm_bf16_alignment"]["rows"]) {
        const std::string layout = row[0];
        const double m = row[1], n = row[2], k = row[3], odd = row[4], seconds = row[5];
        if (odd < 50000) continue;  // the hidden-size rows are the next test's
        const double tokens = layout == "tn" ? k : m;
        const double hidden = layout == "nt" ? k : n;
        auto same = std::find_if(shapes.begin(), shapes.end(), [&](const Shape& s) { return s.tokens == tokens && s.hidden == hidden && s.vocab == odd; });
        if (same == shapes.end()) shapes.push_back({tokens, hidden, odd, seconds});
        else same->measured_seconds += seconds;
    }
    REQUIRE(shapes.size() == 16);  // 6 shapes at 50257 and 50304, then 50258, 50260, 50264, 50272 at 8192 x 1024
    for (const Shape& shape : shapes) {
        if (shape.vocab == 50264 || shape.vocab == 50272) continue;  // aligned and read from the gemm table, timed elsewhere
        const double modelled = logits_seconds(h100, shape.tokens, shape.hidden, shape.vocab);
        INFO(shape.tokens << " tokens x " << shape.hidden << " x " << shape.vocab << ": modelled " << modelled * 1e3 << " ms, measured "
                          << shape.measured_seconds * 1e3 << " ms");
        REQUIRE(std::abs(modelled / shape.measured_seconds - 1) <= 0.12);
    }
    for (const Shape& odd : shapes) {
        if (odd.vocab != 50257) continue;
        const auto padded = std::find_if(shapes.begin(), shapes.end(),
                                         [&](const Shape& s) { return s.tokens == odd.tokens && s.hidden == odd.hidden && s.vocab == 50304; });
        REQUIRE(padded != shapes.end());
        const double measured_ratio = odd.measured_seconds / padded->measured_seconds;
        const double modelled_ratio = logits_seconds(h100, odd.tokens, odd.hidden, 50257) / logits_seconds(h100, odd.tokens, odd.hidden, 50304);
        INFO(odd.tokens << " x " << odd.hidden << ": 50257 over 50304 measured " << measured_ratio << ", modelled " << modelled_ratio);
        REQUIRE(measured_ratio > 5.5);
        REQUIRE(std::abs(modelled_ratio / measured_ratio - 1) <= 0.12);
    }
}

TEST_CASE("h100_alignment_probe.json: a hidden size of 1020 or 1021 slows the QKV-shaped GEMMs 3.1x and 5.1x; the cap reads "
          "13.1 %, 25.9 % and 25.7 % of peak at 2, 4 and 8 bytes", "[kernels][alignment][measured]") {
    const core::GpuSpec& h100 = gpu("h100-sxm");
    const core::EfficiencyCurve& cap = h100.efficiency.gemm_misaligned;
    REQUIRE(cap.at(2) == Approx(0.131));
    REQUIRE(cap.at(4) == Approx(0.259));
    REQUIRE(cap.at(8) == Approx(0.257));
    const core::FrameworkTraits traits;
    const auto qkv_seconds = [&](double hidden) {
        double seconds = 0;
        for (core::Kernel kernel : {gemm(core::KernelPass::forward, 8192, 3072, hidden), gemm(core::KernelPass::backward_input, 8192, hidden, 3072),
                                    gemm(core::KernelPass::backward_weight, hidden, 3072, 8192)}) {
            core::time_kernel(kernel, h100, traits);
            seconds += kernel.seconds;
        }
        return seconds;
    };
    // Measured, the three passes: 1024 -> 214.3 us, 1020 -> 674.4 us (3.1x), 1021 -> 1098.3 us (5.1x).
    const nlohmann::json probe = alignment_probe();
    double measured[3] = {0, 0, 0};
    for (const nlohmann::json& row : probe["gemm_bf16_alignment"]["rows"]) {
        const double odd = row[4];
        const double seconds = row[5];
        if (odd == 1024) measured[0] += seconds;
        if (odd == 1020) measured[1] += seconds;
        if (odd == 1021) measured[2] += seconds;
    }
    const double hidden[3] = {1024, 1020, 1021};
    for (int i = 0; i < 3; ++i) {
        const double modelled = qkv_seconds(hidden[i]);
        INFO("hidden " << hidden[i] << ": modelled " << modelled * 1e6 << " us, measured " << measured[i] * 1e6 << " us");
        REQUIRE(std::abs(modelled / measured[i] - 1) <= 0.25);
    }
    REQUIRE(qkv_seconds(1021) / qkv_seconds(1024) > 2.9);
}

TEST_CASE("h100_alignment_probe.json training_vocab_alignment: the GPT-2 124M shape trains in 80.5 ms at vocabulary 50257 and "
          "55.7 ms at 50304; the modelled difference is within 15 % of the measured one, for it and for 12 x 1024 at s 2048",
          "[kernels][alignment][measured]") {
    const nlohmann::json probe = alignment_probe();
    const nlohmann::json& runs = probe["training_vocab_alignment"];
    REQUIRE(runs.size() == 4);
    for (std::size_t i = 0; i < runs.size(); i += 2) {
        const nlohmann::json& odd = runs[i];
        const nlohmann::json& padded = runs[i + 1];
        REQUIRE(odd["vocab"] == 50257);
        REQUIRE(padded["vocab"] == 50304);
        const auto modelled = [&](const nlohmann::json& run) {
            return core::evaluate(probe_gpt(run["layers"], run["hidden"], run["heads"], run["vocab"], run["seq"], run["batch"])).compute.step_seconds;
        };
        const double measured_gap = odd["step_seconds"].get<double>() - padded["step_seconds"].get<double>();
        const double modelled_gap = modelled(odd) - modelled(padded);
        INFO(odd["layers"] << " x " << odd["hidden"] << ": measured gap " << measured_gap * 1e3 << " ms, modelled " << modelled_gap * 1e3 << " ms");
        REQUIRE(measured_gap > 0.015);
        REQUIRE(std::abs(modelled_gap / measured_gap - 1) <= 0.15);
    }
}

TEST_CASE("Megatron pads the vocabulary to 128 x TP (--make-vocab-size-divisible-by 128, vocab_utils.py): 50257 runs as 50304 "
          "rows on one rank and 51200 / 8 on eight; eager PyTorch runs it as it is", "[kernels][alignment]") {
    core::FrameworkTraits megatron;
    REQUIRE(core::vocab_per_rank(50257, 1, megatron) == 50304);
    REQUIRE(core::vocab_per_rank(50257, 8, megatron) == 6400);
    REQUIRE(core::vocab_per_rank(128256, 8, megatron) == 129024.0 / 8);  // Llama 3's vocabulary at TP 8
    REQUIRE(core::vocab_per_rank(51200, 8, megatron) == 6400);            // the GPT-3 runs' vocabulary is padded already
    core::FrameworkTraits eager;
    eager.vocab_divisible_by = 1;
    REQUIRE(core::vocab_per_rank(50257, 1, eager) == 50257);

    // The same GPT-2-sized model under Megatron: its logits GEMMs are aligned, so the 50257 vocabulary costs no more than
    // the padded rows' extra FLOPs.
    core::Scenario scenario = probe_gpt(12, 768, 12, 50257, 1024, 16);
    scenario.train.framework = core::Framework::megatron;
    const double odd = core::evaluate(scenario).compute.step_seconds;
    scenario.model.vocab = 50304;
    REQUIRE(core::evaluate(scenario).compute.step_seconds == Approx(odd).epsilon(1e-4));  // the optimizer sees 47 more rows
}

TEST_CASE("hardware.json: a gemm_misaligned table at 16 bytes or more is refused naming the field", "[kernels][alignment][errors]") {
    std::ifstream file(std::string(SHARDSCOPE_SOURCE_DIR) + "/assets/hardware.json");
    nlohmann::json catalog = nlohmann::json::parse(file);
    for (nlohmann::json& entry : catalog["gpus"]) {
        if (entry["id"] == "h100-sxm") entry["efficiency"]["gemm_misaligned"]["alignment_bytes"] = {2.0, 4.0, 16.0};
    }
    try {
        core::parse_hardware_catalog(catalog.dump());
        FAIL("accepted");
    } catch (const core::InputError& error) {
        REQUIRE(std::string(error.field()).find("gemm_misaligned.alignment_bytes") != std::string::npos);
    }
}

TEST_CASE("Anatomy texts: a misaligned GEMM says why it runs slow (rows 2-byte aligned, not 16); an aligned one says nothing of it",
          "[kernels][alignment][explain]") {
    for (const int vocab : {50257, 50304}) {
        const core::Scenario scenario = probe_gpt(12, 768, 12, vocab, 1024, 16);
        const core::Report report = core::evaluate(scenario);
        const core::ReportText text = core::explain(scenario, report);
        int logits = 0;
        for (std::size_t i = 0; i < report.compute.kernels.size(); ++i) {
            if (report.compute.kernels[i].id != core::KernelId::logits) continue;
            ++logits;
            const bool says_why = text.kernels[i].formula.find("rows 2-byte aligned, not 16") != std::string::npos;
            INFO("vocabulary " << vocab << ": " << text.kernels[i].formula);
            REQUIRE(says_why == (vocab == 50257));
        }
        REQUIRE(logits == 3);
    }
}

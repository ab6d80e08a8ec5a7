#pragma once
// A search off the UI thread: a frame asks for the result of an input and draws whatever result has arrived, so a drag
// never waits for it. Only the latest request matters: a newer one replaces a queued one. Used by the planner
// (widgets/plan_job.h) and cluster sizing (widgets/size_job.h).
#include <chrono>
#include <exception>
#include <future>
#include <optional>
#include <string>
#include <utility>

#include "widgets/redraw.h"

namespace widgets {

template <typename Input, typename Output>
class BackgroundJob {
public:
    using Work = Output (*)(const Input&);  // may throw: its what() becomes error()
    explicit BackgroundJob(Work work) : work_(work) {}
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;
    ~BackgroundJob() {  // waits for a run still going: it cannot be interrupted
        if (running_.valid()) running_.wait();
    }

    // Nothing happens when this input's result is shown or being computed; while another runs, it is queued.
    void request(Input input) {
        if (queued_ && *queued_ == input) return;
        if (!queued_ && running_input_ && *running_input_ == input) return;
        if (!queued_ && !running_input_ && shown_ && *shown_ == input) return;
        if (running_.valid()) {
            queued_ = std::move(input);
            return;
        }
        start(std::move(input));
    }
    // Takes a finished run and starts the latest request. Call once per frame, before drawing.
    void poll() {
        if (running_.valid() && running_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) finish();
        if (pending()) request_frame();  // the idle window sleeps: keep polling until the result arrives
    }
    // Blocks until the latest request's result is shown: headless export draws a finished result.
    void wait() {
        while (running_.valid()) finish();
    }

    bool pending() const { return running_.valid() || queued_.has_value(); }  // the shown result is not the latest request's
    bool has_result() const { return shown_.has_value(); }
    // The result is the latest request's (a table titled after the request shows no other's rows).
    bool has_current_result() const { return shown_.has_value() && !pending(); }
    const Output& result() const { return output_; }
    const std::string& error() const { return error_; }  // one line; empty when the run succeeded

private:
    struct Outcome {
        Output output;
        std::string error;
    };
    void start(Input input) {
        request_frame();
        running_input_ = input;
        running_ = std::async(std::launch::async, [work = work_, input = std::move(input)]() {
            Outcome outcome;
            try {
                outcome.output = work(input);
            } catch (const std::exception& error) {
                outcome.error = error.what();
            }
            return outcome;
        });
    }
    void finish() {
        Outcome outcome = running_.get();
        output_ = std::move(outcome.output);
        error_ = std::move(outcome.error);
        shown_ = std::move(running_input_);
        running_input_.reset();
        if (queued_) {
            Input next = std::move(*queued_);
            queued_.reset();
            start(std::move(next));
        }
    }

    Work work_;
    std::optional<Input> shown_;          // what output_ is the result of
    std::optional<Input> running_input_;
    std::future<Outcome> running_;
    std::optional<Input> queued_;         // the latest request, waiting for the running one to end
    Output output_;
    std::string error_;
};

}  // namespace widgets

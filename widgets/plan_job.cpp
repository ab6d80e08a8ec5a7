#include "widgets/plan_job.h"

#include "widgets/redraw.h"

#include <chrono>
#include <exception>
#include <utility>

namespace widgets {

PlanJob::~PlanJob() {
    if (running_.valid()) running_.wait();
}

void PlanJob::request(const core::Scenario& scenario, const core::PlanOptions& options) {
    Request request{scenario, options};
    if (queued_ && *queued_ == request) return;
    if (!queued_ && running_request_ && *running_request_ == request) return;
    if (!queued_ && !running_request_ && shown_ && *shown_ == request) return;
    if (running_.valid()) {
        queued_ = std::move(request);  // a newer request replaces an older queued one: only the latest matters
        return;
    }
    queued_.reset();
    start(std::move(request));
}

void PlanJob::start(Request request) {
    request_frame();
    running_request_ = request;
    running_ = std::async(std::launch::async, [request = std::move(request)]() {
        Outcome outcome;
        try {
            outcome.plan = core::plan_layouts(request.scenario, request.options);
        } catch (const std::exception& error) {
            outcome.error = error.what();
        }
        return outcome;
    });
}

void PlanJob::finish() {
    Outcome outcome = running_.get();
    plan_ = std::move(outcome.plan);
    error_ = std::move(outcome.error);
    shown_ = std::move(running_request_);
    running_request_.reset();
    if (queued_) {
        Request next = std::move(*queued_);
        queued_.reset();
        start(std::move(next));
    }
}

void PlanJob::poll() {
    if (running_.valid() && running_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) finish();
    if (pending()) request_frame();  // the idle window sleeps: keep polling until the ranking arrives
}

void PlanJob::wait() {
    while (running_.valid()) finish();
}

}  // namespace widgets

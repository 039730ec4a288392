"""Approvals from Python: a tool made with approval="always" runs only once a
person approves its call -- through Execution.resume (ptc.Approve,
ptc.Reject), a synchronous approver given to ptc.run, or an async one given
to run_async; without an approver ptc.run fails closed."""

import asyncio

import pytest

import ptc

PROGRAM = ("(def amount (tool/lookup {:order 7}))\n"
           "(def done (tool/refund {:order 7 :amount amount}))\n"
           "(str done \"!\")")


class Shop:
    def __init__(self):
        self.refunds = []

    def refund(self, args):
        self.refunds.append(args["amount"])
        return f"refunded {args['amount']}"

    def tools(self):
        return {"lookup": lambda args: 30,
                "refund": ptc.Tool(self.refund, approval="always")}


def test_start_suspends_for_approval_and_approve_runs_the_tool():
    shop = Shop()
    execution = ptc.start(PROGRAM, tools=shop.tools())
    [call] = execution.pending
    assert call == ptc.PendingCall("c1", "refund", {"order": 7, "amount": 30}, "approval", 2, 11)
    assert shop.refunds == []
    with pytest.raises(ValueError, match="waits for a person's approval"):
        execution.resume({"c1": "forged"})
    execution.resume({"c1": ptc.Approve()})
    assert execution.result.value == "refunded 30!"
    assert shop.refunds == [30]


def test_reject_fails_the_call_with_the_reason():
    shop = Shop()
    execution = ptc.start(PROGRAM, tools=shop.tools())
    execution.resume({"c1": ptc.Reject("refunds over 20 need a manager")})
    error = execution.result.error
    assert error.reason == "tool_error"
    assert error.message == "tool/refund was rejected: refunds over 20 need a manager"
    assert shop.refunds == []


def test_a_pending_approval_survives_dump_and_load():
    shop = Shop()
    data = ptc.start(PROGRAM, tools=shop.tools()).dump(key="k")
    loaded = ptc.load(data, tools=shop.tools(), key="k")
    assert loaded.pending[0].kind == "approval"
    loaded.resume({"c1": ptc.Approve()})
    assert loaded.result.value == "refunded 30!"


def test_run_without_an_approver_fails_closed():
    shop = Shop()
    result = ptc.run(PROGRAM, tools=shop.tools())
    assert not result.ok
    assert "tool/refund was not called" in result.error.message
    assert shop.refunds == []


def test_run_asks_the_approver():
    shop = Shop()
    asked = []

    def approver(call):
        asked.append(call)
        return call.args["amount"] <= 20 or ptc.Reject("too much")

    result = ptc.run("(mapv #(tool/refund {:amount %}) [10 20])", tools=shop.tools(),
                     approver=approver)
    assert result.value == ["refunded 10", "refunded 20"]
    assert [c.kind for c in asked] == ["approval", "approval"]
    assert ptc.run(PROGRAM, tools=shop.tools(), approver=approver).error.message == \
        "tool/refund was rejected: too much"

    def broken(call):
        raise RuntimeError("no network")

    assert ptc.run(PROGRAM, tools=shop.tools(), approver=broken).error.message == \
        "tool/refund was rejected: the approver failed: no network"
    assert shop.refunds == [10, 20]


def test_run_async_awaits_an_async_approver_for_every_pmap_branch():
    shop = Shop()
    seen = []

    async def approver(call):
        seen.append(call.id)
        await asyncio.sleep(0)
        return call.args["amount"] != 20

    async def main():
        ok = await ptc.run_async("(pmap #(tool/refund {:amount %}) [10 30])",
                                 tools=shop.tools(), approver=approver)
        bad = await ptc.run_async("(pmap #(tool/refund {:amount %}) [10 20])",
                                  tools=shop.tools(), approver=approver)
        none = await ptc.run_async("(tool/refund {:amount 1})", tools=shop.tools())
        return ok, bad, none

    ok, bad, none = asyncio.run(main())
    assert ok.value == ["refunded 10", "refunded 30"]
    assert sorted(seen[:2]) == ["p0.0/c0", "p0.1/c0"]
    assert bad.error.message == "tool/refund was rejected by the person who approves it"
    assert none.error.message == "tool/refund was rejected: run_async was given no approver"


def test_bad_approval_options_are_type_errors():
    with pytest.raises(ValueError, match="approval must be"):
        ptc.Tool(lambda a: 1, approval="sometimes")
    with pytest.raises(TypeError, match="approver must be callable"):
        ptc.run("1", tools={"t": lambda a: 1}, approver=3)
    with pytest.raises(TypeError, match="reason must be a str"):
        ptc.Reject(3)

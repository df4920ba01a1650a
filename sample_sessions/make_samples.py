#!/usr/bin/env python3
"""Writes the bundled sample sessions (deterministic: re-running gives identical files).

    python sample_sessions/make_samples.py

- vendor_onboarding.json  OpenAI Chat Completions request body with tools: a procurement agent
                          onboards TechCorp (lookup returns not found, the agent creates it).
- hr_leave_balance.json   Anthropic Messages request body with tools: an HR agent; one
                          structured error result and one large database query result.
- coding_agent.jsonl      the inspector's own JSONL: a 9-turn coding agent with parallel tool
                          calls, large file reads and one recorded compaction summary.
- three_questions.json    OpenAI format: 3 user questions, 11 model calls; every later call
                          re-sends the earlier tool results (the replay demo).

The content is written by hand; only the HR query rows and the call ids are generated (seeded).
The files are committed; this script is kept so they can be regenerated after an edit.
"""

from __future__ import annotations

import json
import random
import re
import string
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _ledgerline_sources import SOURCES, line_of, numbered  # noqa: E402


class Ids:
    """Deterministic, provider-shaped tool call ids."""

    def __init__(self, seed: int, prefix: str, length: int) -> None:
        self.r = random.Random(seed)
        self.prefix = prefix
        self.length = length

    def __call__(self) -> str:
        return self.prefix + "".join(self.r.choices(string.ascii_letters + string.digits, k=self.length))


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def pretty(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2)


def write(name: str, text: str) -> None:
    (HERE / name).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    print(f"wrote {name} ({len(text):,} chars)")


# --------------------------------------------------------------------------------------------
# OpenAI helpers


def oa_tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def oa_call(ids: Ids, name: str, arguments: dict) -> dict:
    return {"id": ids(), "type": "function", "function": {"name": name, "arguments": dumps(arguments)}}


def oa_assistant(calls: list[dict] | None = None, content: str | None = None) -> dict:
    msg: dict = {"role": "assistant", "content": content}
    if calls:
        msg["tool_calls"] = calls
    return msg


def oa_result(call: dict, content) -> dict:
    return {"role": "tool", "tool_call_id": call["id"], "content": content if isinstance(content, str) else pretty(content)}


# --------------------------------------------------------------------------------------------
# vendor_onboarding.json


def vendor_onboarding() -> dict:
    ids = Ids(101, "call_", 24)
    s = {"type": "string"}
    tools = [
        oa_tool("lookup_vendor", "Search the vendor master by name, legal name or tax ID.",
                {"query": {**s, "description": "Name, legal name or tax ID"}}, ["query"]),
        oa_tool("get_onboarding_checklist", "Return the onboarding checklist for a vendor category.",
                {"vendor_type": {"type": "string", "enum": ["software", "hardware", "services", "logistics"]}},
                ["vendor_type"]),
        oa_tool("create_vendor", "Create a vendor record in the vendor master (status pending_documents).",
                {"name": s, "legal_name": s, "tax_id": s, "country": s, "state": s,
                 "category": s, "payment_terms": s, "contact_name": s, "contact_email": s},
                ["name", "legal_name", "tax_id", "country", "category", "payment_terms"]),
        oa_tool("request_tax_form", "Email the vendor contact a secure link to upload a tax form.",
                {"vendor_id": s, "form": {"type": "string", "enum": ["W-9", "W-8BEN-E"]}, "recipient": s},
                ["vendor_id", "form", "recipient"]),
        oa_tool("open_security_review", "Open a third-party security review ticket for a vendor.",
                {"vendor_id": s, "data_access": {"type": "string", "enum": ["none", "internal", "confidential", "customer_pii"]},
                 "notes": s},
                ["vendor_id", "data_access"]),
        oa_tool("add_bank_account", "Attach bank details to a vendor for ACH payments.",
                {"vendor_id": s, "routing_number": s, "account_last4": s, "verification_document_id": s},
                ["vendor_id", "routing_number", "account_last4"]),
        oa_tool("lookup_employee", "Find an employee in the directory by name or email.", {"query": s}, ["query"]),
        oa_tool("assign_approver", "Set the invoice approver for a vendor.", {"vendor_id": s, "employee_id": s},
                ["vendor_id", "employee_id"]),
        oa_tool("get_vendor_status", "Return a vendor's onboarding status and open items.", {"vendor_id": s},
                ["vendor_id"]),
    ]
    m: list[dict] = [
        {"role": "system", "content": (
            "You are the procurement operations assistant for Northwind Logistics. You help the "
            "procurement team add and maintain suppliers in the vendor master (Coupa). Always check "
            "whether a vendor already exists before creating one, never invent tax IDs or bank "
            "details, and follow the onboarding checklist for the vendor's category. US vendors "
            "need a W-9; foreign vendors need a W-8BEN-E. Any vendor that will process customer "
            "data needs a security review before its first purchase order. Be concise and list "
            "anything that is still blocking payment.")},
        {"role": "user", "content": (
            "Please onboard TechCorp as a new software vendor. Legal name is TechCorp Solutions Inc., "
            "based in Austin, TX, tax ID 84-2917365. We agreed Net 45 payment terms. Their contact is "
            "Priya Raman, priya.raman@techcorp.io. They'll be hosting our route-optimization models, "
            "so they will see shipment and customer address data.")},
    ]
    c = oa_call(ids, "lookup_vendor", {"query": "TechCorp"})
    m += [oa_assistant([c]), oa_result(c, {
        "status": "not_found",
        "query": "TechCorp",
        "message": "No vendor matches 'TechCorp'.",
        "similar": [
            {"vendor_id": "V-10233", "name": "TechCore Industrial Supply", "legal_name": "TechCore Industrial Supply LLC",
             "tax_id": "**-***4410", "country": "US", "state": "OH", "status": "active"},
            {"vendor_id": "V-09817", "name": "Tekcorp Freight Brokers", "legal_name": "Tekcorp Freight Brokers Ltd.",
             "tax_id": None, "country": "CA", "state": "ON", "status": "inactive"},
        ],
    })]
    c = oa_call(ids, "lookup_vendor", {"query": "84-2917365"})
    m += [oa_assistant([c], "TechCorp isn't in the vendor master. The two similar names are different companies "
                            "(an Ohio industrial supplier and an inactive Canadian freight broker). Let me also "
                            "check the tax ID so we don't create a duplicate under another name."),
          oa_result(c, {"status": "not_found", "query": "84-2917365", "message": "No vendor has tax ID 84-2917365.", "similar": []})]
    c = oa_call(ids, "get_onboarding_checklist", {"vendor_type": "software"})
    m += [oa_assistant([c]), oa_result(c, {
        "vendor_type": "software",
        "version": "2025-09",
        "steps": [
            {"id": 1, "step": "Create vendor record", "owner": "procurement", "blocking_payment": True},
            {"id": 2, "step": "Collect tax form (W-9 for US entities, W-8BEN-E otherwise)", "owner": "vendor", "blocking_payment": True},
            {"id": 3, "step": "Security review if the vendor processes confidential or customer data", "owner": "security",
             "blocking_payment": False, "blocking_po": True, "sla_business_days": 10},
            {"id": 4, "step": "Bank details with verification document (voided check or bank letter)", "owner": "finance", "blocking_payment": True},
            {"id": 5, "step": "Assign an invoice approver (director level or above)", "owner": "requester", "blocking_payment": True},
            {"id": 6, "step": "Upload signed MSA and DPA to the contract repository", "owner": "legal", "blocking_payment": False},
        ],
    })]
    c = oa_call(ids, "create_vendor", {
        "name": "TechCorp", "legal_name": "TechCorp Solutions Inc.", "tax_id": "84-2917365", "country": "US",
        "state": "TX", "category": "software", "payment_terms": "NET45", "contact_name": "Priya Raman",
        "contact_email": "priya.raman@techcorp.io"})
    m += [oa_assistant([c]), oa_result(c, {
        "vendor_id": "V-10871", "status": "pending_documents", "created_at": "2025-11-18T15:42:09Z",
        "created_by": "procurement-assistant", "payment_terms": "NET45",
        "open_items": ["tax_form", "bank_details", "invoice_approver"]})]
    c1 = oa_call(ids, "request_tax_form", {"vendor_id": "V-10871", "form": "W-9", "recipient": "priya.raman@techcorp.io"})
    c2 = oa_call(ids, "open_security_review", {
        "vendor_id": "V-10871", "data_access": "customer_pii",
        "notes": "Hosts route-optimization models; will receive shipment records and customer delivery addresses."})
    m += [oa_assistant([c1, c2]),
          oa_result(c1, {"request_id": "TF-55120", "vendor_id": "V-10871", "form": "W-9", "sent_to": "priya.raman@techcorp.io",
                         "link_expires": "2025-12-02", "status": "sent"}),
          oa_result(c2, {"ticket": "SEC-3318", "vendor_id": "V-10871", "queue": "third-party-risk", "priority": "P3",
                         "sla_due": "2025-12-02", "questionnaire": "SIG Lite 2025", "status": "open"})]
    m.append(oa_assistant(content=(
        "TechCorp is set up as vendor **V-10871** (TechCorp Solutions Inc., Austin TX, tax ID 84-2917365, Net 45), "
        "status *pending documents*.\n\n"
        "Done:\n"
        "- Checked for duplicates by name and tax ID: none (TechCore Industrial Supply and Tekcorp Freight Brokers are unrelated).\n"
        "- W-9 request TF-55120 sent to priya.raman@techcorp.io (link valid until Dec 2).\n"
        "- Security review SEC-3318 opened with data access *customer PII*, since they will see delivery addresses. "
        "It blocks the first purchase order, not payment; SLA is Dec 2.\n\n"
        "Still blocking payment:\n"
        "1. The signed W-9 from TechCorp.\n"
        "2. Bank details with a verification document (voided check or bank letter).\n"
        "3. An invoice approver at director level or above. Who should approve their invoices?")))
    m.append({"role": "user", "content": (
        "Finance says the bank details came in: routing 111000025, account ending 4821. Add them, and make "
        "Dana Whitfield the approver.")})
    c = oa_call(ids, "add_bank_account", {"vendor_id": "V-10871", "routing_number": "111000025", "account_last4": "4821"})
    m += [oa_assistant([c]), oa_result(c, {
        "error": "verification_required",
        "message": "Bank accounts for vendors in status pending_documents require verification_document_id "
                   "(a voided check or bank letter uploaded to the vendor's document folder).",
        "vendor_id": "V-10871", "documents_on_file": []})]
    c = oa_call(ids, "lookup_employee", {"query": "Dana Whitfield"})
    m += [oa_assistant([c], "The bank account was rejected: a verification document is required first. I'll set the approver meanwhile."),
          oa_result(c, {"matches": [{"employee_id": "E-4471", "name": "Dana Whitfield", "title": "Director, Network Planning",
                                     "department": "Operations", "email": "dana.whitfield@northwind-logistics.com",
                                     "approval_limit_usd": 250000, "manager": "E-1022"}]})]
    c = oa_call(ids, "assign_approver", {"vendor_id": "V-10871", "employee_id": "E-4471"})
    m += [oa_assistant([c]), oa_result(c, {"vendor_id": "V-10871", "approver": "E-4471", "status": "assigned",
                                            "open_items": ["tax_form", "bank_details"]})]
    m.append(oa_assistant(content=(
        "Dana Whitfield (Director, Network Planning, approval limit $250,000) is now the invoice approver for V-10871.\n\n"
        "I could not add the bank account: vendors still pending documents need a verification document with it. "
        "Please ask Finance to upload TechCorp's voided check or bank letter to the vendor's document folder and I'll "
        "attach routing 111000025 / account ending 4821 right away.")))
    m.append({"role": "user", "content": "What's still blocking TechCorp from getting paid?"})
    c = oa_call(ids, "get_vendor_status", {"vendor_id": "V-10871"})
    m += [oa_assistant([c]), oa_result(c, {
        "vendor_id": "V-10871", "name": "TechCorp", "status": "pending_documents",
        "open_items": [
            {"item": "tax_form", "detail": "W-9 requested 2025-11-18 (TF-55120), not yet received", "blocks": "payment"},
            {"item": "bank_details", "detail": "no verified bank account", "blocks": "payment"},
            {"item": "security_review", "detail": "SEC-3318 open, questionnaire not returned", "blocks": "purchase_order"},
        ],
        "completed_items": ["vendor_record", "invoice_approver"],
        "first_po_allowed": False, "payments_allowed": False})]
    m.append(oa_assistant(content=(
        "Two things block payment to TechCorp (V-10871):\n"
        "1. **W-9** - requested on Nov 18 (TF-55120), not received yet.\n"
        "2. **Verified bank account** - we have routing 111000025 / account ending 4821 but need the voided check "
        "or bank letter before it can be attached.\n\n"
        "Separately, security review SEC-3318 is still waiting for their questionnaire; that blocks the first purchase "
        "order rather than payment. The vendor record and the approver (Dana Whitfield) are done.")))
    return {"model": "gpt-4o-2024-08-06", "tools": tools, "messages": m}


# --------------------------------------------------------------------------------------------
# three_questions.json


def three_questions() -> dict:
    """A sales-analytics agent: 3 questions, 11 model calls, large query results."""
    ids = Ids(303, "call_", 24)
    r = random.Random(3)
    s = {"type": "string"}
    tools = [
        oa_tool("run_sql", "Run a read-only SQL query against the sales warehouse (Snowflake).", {"sql": s}, ["sql"]),
        oa_tool("describe_table", "Columns and types of a warehouse table.", {"table": s}, ["table"]),
        oa_tool("get_metric_definition", "The finance-approved definition of a business metric.", {"metric": s}, ["metric"]),
    ]
    regions = ["North America", "EMEA", "APAC", "LATAM"]
    products = [("SKU-1042", "Atlas Standing Desk"), ("SKU-1107", "Atlas Desk Frame"), ("SKU-2210", "Orbit Task Chair"),
                ("SKU-2214", "Orbit Chair Headrest"), ("SKU-3301", "Lumen Desk Lamp"), ("SKU-3325", "Lumen Monitor Bar"),
                ("SKU-4410", "Dock Pro USB-C Hub"), ("SKU-4452", "Dock Mini"), ("SKU-5120", "Quiet Mat"),
                ("SKU-5188", "Cable Spine"), ("SKU-6003", "Nook Acoustic Panel"), ("SKU-6017", "Nook Panel 4-pack")]

    def money(lo: int, hi: int) -> float:
        return round(r.uniform(lo, hi), 2)

    describe = {"table": "analytics.fct_order_lines", "rows_estimate": 48211930, "columns": [
        {"name": "order_id", "type": "VARCHAR", "nullable": False},
        {"name": "order_line_id", "type": "VARCHAR", "nullable": False},
        {"name": "order_date", "type": "DATE", "nullable": False},
        {"name": "sku", "type": "VARCHAR", "nullable": False},
        {"name": "product_name", "type": "VARCHAR", "nullable": False},
        {"name": "region", "type": "VARCHAR", "nullable": False},
        {"name": "channel", "type": "VARCHAR", "nullable": False, "values": ["web", "retail", "b2b"]},
        {"name": "quantity", "type": "NUMBER(10,0)", "nullable": False},
        {"name": "gross_amount_usd", "type": "NUMBER(14,2)", "nullable": False},
        {"name": "discount_usd", "type": "NUMBER(14,2)", "nullable": False},
        {"name": "net_amount_usd", "type": "NUMBER(14,2)", "nullable": False},
        {"name": "returned_quantity", "type": "NUMBER(10,0)", "nullable": True},
        {"name": "refund_usd", "type": "NUMBER(14,2)", "nullable": True},
        {"name": "is_test_order", "type": "BOOLEAN", "nullable": False},
    ]}
    metric = {"metric": "net_revenue", "owner": "FP&A", "approved": "2025-07-01",
              "definition": "Sum of net_amount_usd minus refund_usd for orders that are not test orders, by order_date. "
                            "B2B orders are included. Shipping and tax are excluded.",
              "sql": "SUM(net_amount_usd) - SUM(COALESCE(refund_usd, 0)) WHERE NOT is_test_order"}

    def region_rows() -> list[dict]:
        rows = []
        for sku, name in products:
            for region in regions:
                gross = money(40_000, 900_000)
                rows.append({"sku": sku, "product_name": name, "region": region, "orders": r.randint(400, 9000),
                             "units": r.randint(500, 12000), "net_revenue_usd": gross,
                             "refunds_usd": money(1_000, gross * 0.09)})
        return rows

    q1_rows = region_rows()
    q2_rows = []
    for sku, name in products:
        for month in ("2025-07", "2025-08", "2025-09"):
            q2_rows.append({"sku": sku, "product_name": name, "month": month, "units_returned": r.randint(10, 700),
                            "refund_usd": money(800, 70_000), "top_reason": r.choice(
                                ["damaged in transit", "wrong size", "changed mind", "defective", "missing parts", "late delivery"])})
    q3_rows = []
    for sku, name in products[:6]:
        for channel in ("web", "retail", "b2b"):
            q3_rows.append({"sku": sku, "product_name": name, "channel": channel, "q2_net_usd": money(30_000, 700_000),
                            "q3_net_usd": money(30_000, 700_000), "avg_discount_pct": round(r.uniform(0, 22), 1)})

    m: list[dict] = [
        {"role": "system", "content": (
            "You are a sales analytics assistant for Haven Workspace, a furniture and desk-accessories company. "
            "Answer questions with data from the warehouse using run_sql. Check table structure and metric "
            "definitions before writing a query you are unsure of, exclude test orders, and quote numbers in USD. "
            "Fiscal quarters follow calendar quarters.")},
        {"role": "user", "content": "Which products brought in the most net revenue last quarter, by region?"},
    ]
    c = oa_call(ids, "describe_table", {"table": "analytics.fct_order_lines"})
    m += [oa_assistant([c]), oa_result(c, describe)]
    c = oa_call(ids, "get_metric_definition", {"metric": "net_revenue"})
    m += [oa_assistant([c]), oa_result(c, metric)]
    sql1 = ("SELECT sku, product_name, region, COUNT(DISTINCT order_id) AS orders, SUM(quantity) AS units,\n"
            "       SUM(net_amount_usd) AS net_revenue_usd, SUM(COALESCE(refund_usd, 0)) AS refunds_usd\n"
            "FROM analytics.fct_order_lines\nWHERE order_date BETWEEN '2025-07-01' AND '2025-09-30' AND NOT is_test_order\n"
            "GROUP BY 1, 2, 3 ORDER BY net_revenue_usd DESC")
    c = oa_call(ids, "run_sql", {"sql": sql1})
    m += [oa_assistant([c]), oa_result(c, {"row_count": len(q1_rows), "elapsed_ms": 1834, "rows": q1_rows})]
    top = sorted(q1_rows, key=lambda x: x["net_revenue_usd"] - x["refunds_usd"], reverse=True)[:5]
    lines = "\n".join(f"{i}. {row['product_name']} ({row['region']}): ${row['net_revenue_usd'] - row['refunds_usd']:,.2f}"
                      for i, row in enumerate(top, 1))
    m.append(oa_assistant(content=(
        "Top five product/region combinations by net revenue in Q3 2025 (Jul-Sep, net of refunds, test orders excluded):\n"
        f"{lines}\n\nThe full breakdown covers 12 products in 4 regions; tell me if you want it as a table.")))
    m.append({"role": "user", "content": "How much did returns eat into those numbers? Which products have a returns problem?"})
    sql2 = ("SELECT sku, product_name, TO_CHAR(order_date, 'YYYY-MM') AS month, SUM(returned_quantity) AS units_returned,\n"
            "       SUM(refund_usd) AS refund_usd, MODE(return_reason) AS top_reason\n"
            "FROM analytics.fct_order_lines JOIN analytics.dim_returns USING (order_line_id)\n"
            "WHERE order_date BETWEEN '2025-07-01' AND '2025-09-30' AND NOT is_test_order GROUP BY 1, 2, 3")
    c = oa_call(ids, "run_sql", {"sql": sql2})
    m += [oa_assistant([c]), oa_result(c, {
        "error": "SQL compilation error: error line 2 at position 45 invalid identifier 'RETURN_REASON'",
        "hint": "analytics.dim_returns has columns order_line_id, returned_at, reason_code, reason_text"})]
    c = oa_call(ids, "describe_table", {"table": "analytics.dim_returns"})
    m += [oa_assistant([c], "That column doesn't exist; checking the returns table."),
          oa_result(c, {"table": "analytics.dim_returns", "rows_estimate": 2210394, "columns": [
              {"name": "order_line_id", "type": "VARCHAR", "nullable": False},
              {"name": "returned_at", "type": "TIMESTAMP_NTZ", "nullable": False},
              {"name": "reason_code", "type": "VARCHAR", "nullable": False},
              {"name": "reason_text", "type": "VARCHAR", "nullable": True},
              {"name": "restocked", "type": "BOOLEAN", "nullable": False},
              {"name": "carrier_claim_id", "type": "VARCHAR", "nullable": True}]})]
    c = oa_call(ids, "run_sql", {"sql": sql2.replace("MODE(return_reason)", "MODE(reason_text)")})
    m += [oa_assistant([c], "The column is reason_text; retrying."),
          oa_result(c, {"row_count": len(q2_rows), "elapsed_ms": 2210, "rows": q2_rows})]
    worst = sorted(q2_rows, key=lambda x: x["refund_usd"], reverse=True)[:3]
    m.append(oa_assistant(content=(
        f"Refunds in Q3 totalled ${sum(x['refund_usd'] for x in q2_rows):,.2f} across the 12 products. The largest single "
        "product-months were:\n" + "\n".join(
            f"- {w['product_name']}, {w['month']}: ${w['refund_usd']:,.2f} ({w['units_returned']} units, mostly \"{w['top_reason']}\")"
            for w in worst) +
        "\n\nI'd treat a product as having a returns problem when its refunds exceed 5% of its net revenue for two months "
        "in a row; want me to run that check?")))
    m.append({"role": "user", "content": "Last one: compare Q3 with Q2 by sales channel for our six biggest products."})
    sql3 = ("SELECT sku, product_name, channel,\n"
            "       SUM(IFF(order_date BETWEEN '2025-04-01' AND '2025-06-30', net_amount_usd, 0)) AS q2_net_usd,\n"
            "       SUM(IFF(order_date BETWEEN '2025-07-01' AND '2025-09-30', net_amount_usd, 0)) AS q3_net_usd,\n"
            "       ROUND(100 * SUM(discount_usd) / NULLIF(SUM(gross_amount_usd), 0), 1) AS avg_discount_pct\n"
            "FROM analytics.fct_order_lines WHERE order_date BETWEEN '2025-04-01' AND '2025-09-30' AND NOT is_test_order\n"
            "  AND sku IN ('SKU-1042','SKU-1107','SKU-2210','SKU-2214','SKU-3301','SKU-3325') GROUP BY 1, 2, 3")
    c = oa_call(ids, "run_sql", {"sql": sql3})
    m += [oa_assistant([c]), oa_result(c, {"row_count": len(q3_rows), "elapsed_ms": 1542, "rows": q3_rows})]
    c = oa_call(ids, "get_metric_definition", {"metric": "channel"})
    m += [oa_assistant([c], "Before comparing channels, let me confirm how B2B orders are attributed."),
          oa_result(c, {"metric": "channel", "owner": "Sales Ops", "approved": "2025-03-12",
                        "definition": "Channel of the order at checkout: web (haven.com), retail (partner stores, "
                                      "sell-through reported weekly) or b2b (invoiced corporate accounts). Retail revenue "
                                      "lags by up to 14 days."})]
    up = [row for row in q3_rows if row["q3_net_usd"] > row["q2_net_usd"]]
    m.append(oa_assistant(content=(
        f"Q3 vs Q2 for the six largest products: {len(up)} of {len(q3_rows)} product/channel combinations grew. "
        "B2B moved the most in both directions; retail figures for late September may still rise by up to two weeks "
        "of sell-through, so treat retail declines under 10% as provisional. Average discounts stayed between "
        f"{min(x['avg_discount_pct'] for x in q3_rows)}% and {max(x['avg_discount_pct'] for x in q3_rows)}%.")))
    return {"model": "gpt-4.1-2025-04-14", "tools": tools, "messages": m}


# --------------------------------------------------------------------------------------------
# hr_leave_balance.json (Anthropic)


def hr_leave_balance() -> dict:
    ids = Ids(202, "toolu_01", 22)
    r = random.Random(1729)

    def use(name: str, input_: dict) -> dict:
        return {"type": "tool_use", "id": ids(), "name": name, "input": input_}

    def result(u: dict, content, is_error: bool = False) -> dict:
        block = {"type": "tool_result", "tool_use_id": u["id"], "content": content if isinstance(content, str) else pretty(content)}
        if is_error:
            block["is_error"] = True
        return block

    s = {"type": "string"}
    tools = [
        {"name": "lookup_employee", "description": "Find an employee by exact name, email or employee ID in Workday.",
         "input_schema": {"type": "object", "properties": {"name": s, "email": s, "employee_id": s}}},
        {"name": "get_leave_balance", "description": "Leave balances (accrued, used, scheduled, available) for one employee and year.",
         "input_schema": {"type": "object", "properties": {"employee_id": s, "year": {"type": "integer"}}, "required": ["employee_id", "year"]}},
        {"name": "get_leave_requests", "description": "Leave requests of one employee, newest first.",
         "input_schema": {"type": "object", "properties": {"employee_id": s, "status": s}, "required": ["employee_id"]}},
        {"name": "query_hr_database", "description": "Run a read-only SQL query against the HR reporting replica.",
         "input_schema": {"type": "object", "properties": {"sql": s}, "required": ["sql"]}},
        {"name": "submit_leave_decision", "description": "Approve or decline a pending leave request as the caller's delegate.",
         "input_schema": {"type": "object", "properties": {"request_id": s, "decision": {"type": "string", "enum": ["approve", "decline"]}, "comment": s},
                          "required": ["request_id", "decision"]}},
    ]
    system = (
        "You are Harbor, the HR assistant for Meridian Health Partners. You answer managers' questions about "
        "their team's leave using Workday data, and you may approve or decline leave requests only when the manager "
        "asks you to. Vacation accrues at 1.67 days per month (20 days a year); up to 5 unused days carry over into "
        "the next year and expire on March 31. Never reveal medical details of sick or FMLA leave: report it as "
        "\"protected leave\". Today is 2026-02-23.")

    first_names = ["Aisha", "Ben", "Carmen", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jamal", "Keiko", "Liam",
                   "Maya", "Nikolai", "Olivia", "Pedro", "Quinn", "Rosa", "Sanjay", "Tara", "Umar", "Vera", "Wes", "Yara"]
    last_names = ["Adeyemi", "Brennan", "Castillo", "Dubois", "Eriksen", "Fontaine", "Gupta", "Haddad", "Ivanova",
                  "Jensen", "Kowalski", "Lindqvist", "Mbeki", "Nakamura", "Okafor", "Petrova", "Quispe", "Rahman",
                  "Silva", "Takahashi", "Underwood", "Varga", "Whitaker", "Zhou"]
    team = [(f"E-{20400 + i}", f"{first_names[i]} {last_names[(i * 7) % len(last_names)]}") for i in range(24)]
    team[17] = ("E-20417", "Marcus Oyelaran-Price")
    managers = ["E-18802 Janelle Brooks", "E-19130 Tomasz Wierzbicki"]
    leave_types = ["vacation"] * 6 + ["sick"] * 2 + ["personal", "parental", "bereavement", "jury_duty"]
    statuses = ["approved"] * 5 + ["taken"] * 3 + ["pending", "declined", "cancelled"]
    columns = ["request_id", "employee_id", "employee_name", "leave_type", "start_date", "end_date",
               "business_days", "status", "approver", "submitted_at"]
    rows = []
    for n in range(96):
        emp_id, emp_name = r.choice([t for t in team if t[0] != "E-20417"])
        start = date(2026, 1, 2) + timedelta(days=r.randint(0, 86))
        while start.weekday() >= 5:
            start += timedelta(days=1)
        kind = r.choice(leave_types)
        length = 10 if kind == "parental" else r.choice([1, 1, 2, 3, 5, 5, 10])
        end, days = start, 1
        while days < length:
            end += timedelta(days=1)
            if end.weekday() < 5:
                days += 1
        status = "taken" if end < date(2026, 2, 23) and r.random() < 0.8 else r.choice(statuses)
        submitted = datetime(start.year, start.month, start.day, 8, tzinfo=timezone.utc) - timedelta(minutes=r.randint(60 * 24 * 2, 60 * 24 * 45))
        rows.append([f"LR-{88000 + n * 13}", emp_id, emp_name, "protected" if kind == "sick" else kind,
                     start.isoformat(), end.isoformat(), days, status, r.choice(managers),
                     submitted.strftime("%Y-%m-%dT%H:%M:%SZ")])
    rows.append(["LR-88154", "E-20417", "Marcus Oyelaran-Price", "vacation", "2026-01-08", "2026-01-09", 2, "taken",
                 "E-18802 Janelle Brooks", "2025-12-15T11:32:08Z"])
    rows.append(["LR-89311", "E-20417", "Marcus Oyelaran-Price", "vacation", "2026-03-16", "2026-03-20", 5, "pending",
                 "E-18802 Janelle Brooks", "2026-02-20T16:05:44Z"])
    rows.sort(key=lambda row: (row[4], row[0]))

    msgs: list[dict] = [{"role": "user", "content": (
        "How many vacation days does Marcus Oyelaran have left this year? He wants to take the week of March 16.")}]
    u = use("lookup_employee", {"name": "Marcus Oyelaran"})
    msgs += [{"role": "assistant", "content": [{"type": "text", "text": "I'll look up Marcus in Workday first."}, u]},
             {"role": "user", "content": [result(u, {
                 "error": "not_found",
                 "message": "No employee has the exact name 'Marcus Oyelaran'.",
                 "suggestions": [{"employee_id": "E-20417", "name": "Marcus Oyelaran-Price", "department": "Customer Success",
                                  "manager": "E-18802 Janelle Brooks"}]}, is_error=True)]}]
    u1 = use("get_leave_balance", {"employee_id": "E-20417", "year": 2026})
    u2 = use("get_leave_requests", {"employee_id": "E-20417"})
    msgs += [{"role": "assistant", "content": [
                 {"type": "text", "text": "No exact match, but Workday suggests Marcus Oyelaran-Price in Customer Success. "
                                          "I'll pull his 2026 balance and his leave requests together."}, u1, u2]},
             {"role": "user", "content": [
                 result(u1, {"employee_id": "E-20417", "year": 2026, "vacation": {
                     "carried_over": 3.0, "carry_over_expires": "2026-03-31", "accrued_to_date": 3.34,
                     "accrual_per_month": 1.67, "used": 2.0, "scheduled": 0.0, "pending": 5.0, "available_now": 4.34,
                     "projected_year_end": 23.0}, "personal": {"available_now": 2.0}, "as_of": "2026-02-23"}),
                 result(u2, {"employee_id": "E-20417", "requests": [
                     {"request_id": "LR-89311", "type": "vacation", "start": "2026-03-16", "end": "2026-03-20",
                      "business_days": 5, "status": "pending", "submitted_at": "2026-02-20T16:05:44Z"},
                     {"request_id": "LR-88154", "type": "vacation", "start": "2026-01-08", "end": "2026-01-09",
                      "business_days": 2, "status": "taken"}]})]}]
    msgs.append({"role": "assistant", "content": [{"type": "text", "text": (
        "I found him as **Marcus Oyelaran-Price** (E-20417, Customer Success) - there's no one named exactly Marcus Oyelaran.\n\n"
        "Vacation for 2026, as of today:\n"
        "- 3.0 days carried over from 2025 (they expire March 31)\n"
        "- 3.34 days accrued so far this year, 2.0 used (Jan 8-9)\n"
        "- **4.34 days available now**\n\n"
        "He already has a pending request, LR-89311, for March 16-20 (5 business days). By March 16 he will have accrued "
        "another 1.67 days, so he'll have about 6.0 days available: enough for the full week, and it uses his carried-over "
        "days before they expire.")}]})
    msgs.append({"role": "user", "content": "Before I approve it, who else on Customer Success is off in Q1? Pull everything."})
    sql = ("SELECT r.request_id, r.employee_id, e.full_name AS employee_name, r.leave_type, r.start_date, r.end_date,\n"
           "       r.business_days, r.status, r.approver, r.submitted_at\n"
           "FROM leave_requests r JOIN employees e ON e.employee_id = r.employee_id\n"
           "WHERE e.department = 'Customer Success' AND r.start_date <= DATE '2026-03-31' AND r.end_date >= DATE '2026-01-01'\n"
           "ORDER BY r.start_date, r.request_id")
    u = use("query_hr_database", {"sql": sql})
    msgs += [{"role": "assistant", "content": [u]},
             {"role": "user", "content": [result(u, pretty({"columns": columns, "row_count": len(rows), "rows": rows}).replace("\n      ", " ").replace("\n    ]", " ]"))]}]
    week = [row for row in rows if row[4] <= "2026-03-20" and row[5] >= "2026-03-16" and row[7] in ("approved", "pending") and row[1] != "E-20417"]
    who = "\n".join(f"- {row[2]}: {row[3]}, {row[4]} to {row[5]} ({row[7]})" for row in week) or "- nobody"
    msgs.append({"role": "assistant", "content": [{"type": "text", "text": (
        f"Customer Success has {len(rows)} leave requests overlapping Q1 2026. For the week of March 16-20 specifically, "
        f"besides Marcus:\n{who}\n\n"
        f"That is {len(week)} people away on at least one day of that week. Protected leave is listed without details; "
        "check the overlaps against your on-call rota before approving.")}]})
    msgs.append({"role": "user", "content": "OK, approve Marcus's request. Add a note that he should hand over his escalations to Priya."})
    u = use("submit_leave_decision", {"request_id": "LR-89311", "decision": "approve",
                                      "comment": "Approved. Please hand over your open escalations to Priya before you leave."})
    msgs += [{"role": "assistant", "content": [u]},
             {"role": "user", "content": [result(u, {"request_id": "LR-89311", "status": "approved", "decided_by": "E-18802 Janelle Brooks (via Harbor)",
                                                     "decided_at": "2026-02-23T10:14:31Z", "notification_sent": True})]}]
    msgs.append({"role": "assistant", "content": [{"type": "text", "text": (
        "Done: LR-89311 (March 16-20, 5 days) is approved and Marcus has been notified, with your note about handing his "
        "escalations to Priya. His remaining vacation after that week will be about 1 day until April's accrual.")}]})
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 4096, "system": system, "tools": tools, "messages": msgs}


# --------------------------------------------------------------------------------------------
# coding_agent.jsonl (the inspector's JSONL)


def coding_agent() -> list[dict]:
    ids = Ids(404, "call_", 12)
    clock = [datetime(2026, 3, 9, 14, 2, 11, tzinfo=timezone.utc)]

    def ts(seconds: int = 7) -> str:
        clock[0] += timedelta(seconds=seconds)
        return clock[0].strftime("%Y-%m-%dT%H:%M:%SZ")

    def call(name: str, args: dict) -> dict:
        return {"id": ids(), "name": name, "arguments": dumps(args)}

    def asst(calls: list[dict] | None = None, text: str | None = None, wait: int = 6) -> dict:
        msg: dict = {"role": "assistant", "content": text}
        if calls:
            msg["tool_calls"] = calls
        msg["ts"] = ts(wait)
        return msg

    def res(c: dict, content: str, is_error: bool = False) -> dict:
        msg = {"role": "tool", "tool_call_id": c["id"], "name": c["name"], "content": content}
        if is_error:
            msg["is_error"] = True
        msg["ts"] = ts(1)
        return msg

    def user(text: str) -> dict:
        return {"role": "user", "content": text, "ts": ts(40)}

    def read(path: str) -> str:
        return numbered(SOURCES[path])

    L = line_of

    def grep(pattern: str, prefix: str, extra: tuple[str, ...] = ()) -> str:
        """What ripgrep prints over the original sources under ``prefix`` (plus lines of files we don't ship)."""
        rx = re.compile(pattern)
        found = [f"{path}:{n}:{line}" for path, text in SOURCES.items() if path.startswith(prefix)
                 for n, line in enumerate(text.splitlines(), 1) if rx.search(line)]
        return "\n".join(found + list(extra)) + "\n"

    TOTAL = "        return sum((line.net for line in self.lines), Money.zero(self.currency)).converted(self.rate).rounded()"
    CONVERTED = "        return self.net.converted(rate, target).rounded()"
    ROUNDED = "        return Money(self.amount.quantize(_exponent(self.currency), rounding=ROUND_HALF_EVEN), self.currency)"
    CONVERT = "    return Money((money.amount * rate).quantize(_exponent(target), rounding=ROUND_HALF_EVEN), target)"
    TAX_ROUND = '    return Money(amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN), currency)'
    LEGACY_TEST = ('def test_total_matches_legacy_rounding(usd_invoice):\n    usd_invoice.rate = Decimal("0.91735")\n'
                   '    usd_invoice.invoice_currency = "EUR"\n    assert usd_invoice.total == Money(Decimal("1234.57"), "EUR")')
    EXPORT_AMOUNT = '        "amount": f"{line.amount.amount:.2f}",'
    REPORT_ROW = '                    f"{row.total.amount:.2f}",'
    REPORT_TOTAL = '    lines.append(f"Total outstanding: {grand_total.amount:.2f} {grand_total.currency}")'
    VAT_ASSERT = '    assert split.vat == Money(Decimal("2.13"), "EUR")'
    RC_ASSERT = '    assert total == Money(Decimal("100.25"), "EUR")'
    money_import = L("ledgerline/money.py", "from decimal import ROUND_HALF_EVEN, Decimal")

    tools = [
        {"name": "read_file", "description": "Read a file from the repository, with line numbers.",
         "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "edit_file", "description": "Replace an exact snippet of a file with new text. The snippet must occur once.",
         "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}},
                        "required": ["path", "old", "new"]}},
        {"name": "grep", "description": "Search the repository with a regular expression (ripgrep).",
         "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}, "required": ["pattern"]}},
        {"name": "list_dir", "description": "List a directory.",
         "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "run_tests", "description": "Run pytest with the given arguments and return its output.",
         "parameters": {"type": "object", "properties": {"args": {"type": "string"}}}},
        {"name": "bash", "description": "Run a shell command in the repository root.",
         "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
    ]
    header = {"type": "session", "version": 1, "tools": tools,
              "meta": {"agent": "ledgerline-dev-agent 0.4", "repo": "git@github.com:haven-finance/ledgerline.git",
                       "model": "claude-sonnet-4-5", "started": "2026-03-09T14:02:11Z"}}
    m: list[dict] = [{"role": "system", "content": (
        "You are a senior Python engineer working in the ledgerline repository (invoicing and billing for Haven "
        "Finance). Use the tools to read code before changing it, keep changes minimal, run the relevant tests after "
        "every change, and never commit unless asked. Money is always decimal.Decimal, never float. Reply in short "
        "paragraphs; show diffs only when asked."), "ts": ts(0)}]

    # turn 1: diagnose the cent
    m.append(user("Invoice totals are off by a cent on some multi-currency invoices. Customer 4471's March invoice shows "
                  "1,234.57 EUR but the line items add up to 1,234.56. Can you find out why?"))
    c1, c2 = call("list_dir", {"path": "ledgerline"}), call("grep", {"pattern": r"quantize\(|\.rounded\(\)", "path": "ledgerline"})
    m += [asst([c1, c2], "I'll look at the package layout and every place that rounds money."),
          res(c1, "__init__.py\ncli.py\ncurrency.py\nexport.py\ninvoice.py\nmoney.py\nreports.py\nrates.py\ntax.py\n"),
          res(c2, grep(r"quantize\(|\.rounded\(\)", "ledgerline/", ("ledgerline/rates.py:33:    return (Decimal(1) / rate).quantize(Decimal(\"0.000001\"))",)))]
    c1, c2 = call("read_file", {"path": "ledgerline/money.py"}), call("read_file", {"path": "ledgerline/invoice.py"})
    m += [asst([c1, c2]), res(c1, read("ledgerline/money.py")), res(c2, read("ledgerline/invoice.py"))]
    m.append(asst(text=(
        f"Found it. `Invoice.total` (invoice.py line {L('ledgerline/invoice.py', TOTAL)}) converts the *unrounded* sum of the line nets into the invoice "
        f"currency and rounds once, while each line's `converted` amount (line {L('ledgerline/invoice.py', CONVERTED)}) is rounded on its own. The printed "
        "lines are rounded individually, so their sum can differ from the total by a cent when several lines have "
        "half-cent remainders. Customer 4471's invoice has 14 USD lines converted at 0.91735 EUR: the per-line rounding "
        "drops 0.004 EUR in total, enough to flip the last cent.\n\n"
        "Both helpers also use ROUND_HALF_EVEN (banker's rounding), while the invoice PDF template and finance's "
        "spreadsheet use half-up, which can add another cent of disagreement.")))

    # turn 2: fix it
    m.append(user("Makes sense. Make the total the sum of the rounded line amounts, and use ROUND_HALF_UP for money everywhere."))
    c = call("edit_file", {"path": "ledgerline/invoice.py",
                           "old": TOTAL,
                           "new": "        return sum((line.converted(self.rate) for line in self.lines), Money.zero(self.invoice_currency))"})
    m += [asst([c]), res(c, f"Applied 1 edit to ledgerline/invoice.py (line {L('ledgerline/invoice.py', TOTAL)}).")]
    c = call("edit_file", {"path": "ledgerline/money.py", "old": "from decimal import ROUND_HALF_EVEN, Decimal",
                           "new": "from decimal import ROUND_HALF_UP, Decimal\n\nMONEY_ROUNDING = ROUND_HALF_UP"})
    m += [asst([c]), res(c, f"Applied 1 edit to ledgerline/money.py (line {money_import}).")]
    c = call("bash", {"command": "sed -i 's/rounding=ROUND_HALF_EVEN/rounding=MONEY_ROUNDING/' ledgerline/money.py && grep -n MONEY_ROUNDING ledgerline/money.py"})
    m += [asst([c]), res(c, f"{money_import + 2}:MONEY_ROUNDING = ROUND_HALF_UP\n"
                            f"{L('ledgerline/money.py', ROUNDED) + 2}:{ROUNDED.replace('ROUND_HALF_EVEN', 'MONEY_ROUNDING')}\n"
                            f"{L('ledgerline/money.py', CONVERT) + 2}:{CONVERT.replace('ROUND_HALF_EVEN', 'MONEY_ROUNDING')}\n")]
    c = call("run_tests", {"args": "tests/test_invoice.py -q"})
    m += [asst([c]), res(c, (
        "....F....                                                                [100%]\n"
        "=================================== FAILURES ===================================\n"
        "_________________________ test_total_matches_legacy_rounding ___________________________\n\n"
        "    def test_total_matches_legacy_rounding(usd_invoice):\n"
        "        usd_invoice.rate = Decimal(\"0.91735\")\n"
        "        usd_invoice.invoice_currency = \"EUR\"\n"
        ">       assert usd_invoice.total == Money(Decimal(\"1234.57\"), \"EUR\")\n"
        "E       AssertionError: assert Money(amount=Decimal('1234.56'), currency='EUR') == Money(amount=Decimal('1234.57'), currency='EUR')\n\n"
        f"tests/test_invoice.py:{L('tests/test_invoice.py', LEGACY_TEST) + 3}: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_invoice.py::test_total_matches_legacy_rounding - AssertionError\n"
        "1 failed, 8 passed in 0.41s\n"))]
    c = call("read_file", {"path": "tests/test_invoice.py"})
    m += [asst([c], "One test pins the old behaviour. Let me read it before touching it."), res(c, read("tests/test_invoice.py"))]
    c = call("edit_file", {"path": "tests/test_invoice.py",
                           "old": LEGACY_TEST,
                           "new": "def test_total_is_sum_of_printed_lines(usd_invoice):\n    usd_invoice.rate = Decimal(\"0.91735\")\n    usd_invoice.invoice_currency = \"EUR\"\n    printed = sum((line.converted(usd_invoice.rate) for line in usd_invoice.lines), Money.zero(\"EUR\"))\n    assert usd_invoice.total == printed == Money(Decimal(\"1234.56\"), \"EUR\")"})
    m += [asst([c]), res(c, f"Applied 1 edit to tests/test_invoice.py (line {L('tests/test_invoice.py', LEGACY_TEST)}).")]
    c = call("run_tests", {"args": "tests/test_invoice.py -q"})
    m += [asst([c]), res(c, ".........                                                                [100%]\n9 passed in 0.38s\n")]
    m.append(asst(text=(
        "Fixed. `Invoice.total` is now the sum of the rounded, converted line amounts, so it always matches the printed "
        "lines, and money rounding is half-up through one constant, `MONEY_ROUNDING`, in money.py. The test that pinned "
        "the old total now checks that the total equals the sum of the printed lines (1,234.56 EUR for that fixture). "
        "tests/test_invoice.py passes (9 tests).")))

    # turn 3: regression test
    m.append(user("Add a regression test with customer 4471's actual March lines."))
    c1, c2 = call("grep", {"pattern": "4471", "path": "tests/fixtures"}), call("read_file", {"path": "tests/conftest.py"})
    m += [asst([c1, c2]),
          res(c1, "tests/fixtures/invoices_2026_03.json:1187:    \"customer_id\": 4471,\n"
                  "tests/fixtures/invoices_2026_03.json:1188:    \"invoice_number\": \"INV-2026-03-4471\",\n"),
          res(c2, read("tests/conftest.py"))]
    c = call("edit_file", {"path": "tests/test_invoice.py", "old": "# --- regressions ---\n",
                           "new": "# --- regressions ---\n\n\ndef test_customer_4471_march_total(march_invoices):\n"
                                  "    invoice = march_invoices[\"INV-2026-03-4471\"]\n"
                                  "    printed = sum((line.converted(invoice.rate) for line in invoice.lines), Money.zero(\"EUR\"))\n"
                                  "    assert invoice.total == printed == Money(Decimal(\"1234.56\"), \"EUR\")\n"})
    m += [asst([c], "conftest.py already loads the March fixtures by invoice number, so the test can use them directly."),
          res(c, f"Applied 1 edit to tests/test_invoice.py (line {L('tests/test_invoice.py', '# --- regressions ---') + 1}).")]
    c = call("run_tests", {"args": "tests/test_invoice.py -q -k 4471"})
    m += [asst([c]), res(c, ".                                                                        [100%]\n1 passed, 9 deselected in 0.29s\n")]
    m.append(asst(text="Added `test_customer_4471_march_total`, which loads INV-2026-03-4471 from the March fixtures and "
                       "checks the total equals the sum of its printed lines (1,234.56 EUR). It passes."))

    # turn 4: full suite, tax fallout
    m.append(user("Run the whole suite before we commit."))
    c = call("run_tests", {"args": "-q"})
    m += [asst([c]), res(c, (
        "........................................F.F.............................. [ 61%]\n"
        "..............................................                             [100%]\n"
        "=================================== FAILURES ===================================\n"
        "__________________________ test_vat_split_rounds_half_up __________________________\n"
        f"tests/test_tax.py:{L('tests/test_tax.py', VAT_ASSERT)}: in test_vat_split_rounds_half_up\n"
        "    assert split.vat == Money(Decimal(\"2.13\"), \"EUR\")\n"
        "E   AssertionError: assert Money(amount=Decimal('2.12'), currency='EUR') == Money(amount=Decimal('2.13'), currency='EUR')\n"
        "________________________ test_reverse_charge_line_total __________________________\n"
        f"tests/test_tax.py:{L('tests/test_tax.py', RC_ASSERT)}: in test_reverse_charge_line_total\n"
        "    assert total == Money(Decimal(\"100.25\"), \"EUR\")\n"
        "E   AssertionError: assert Money(amount=Decimal('100.24'), currency='EUR') == Money(amount=Decimal('100.25'), currency='EUR')\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_tax.py::test_vat_split_rounds_half_up - AssertionError\n"
        "FAILED tests/test_tax.py::test_reverse_charge_line_total - AssertionError\n"
        "2 failed, 117 passed in 3.12s\n"))]
    c1, c2 = call("read_file", {"path": "ledgerline/tax.py"}), call("read_file", {"path": "tests/test_tax.py"})
    m += [asst([c1, c2], "Two tax tests fail. tax.py rounds on its own; reading it and its tests."),
          res(c1, read("ledgerline/tax.py")), res(c2, read("tests/test_tax.py"))]
    c = call("edit_file", {"path": "ledgerline/tax.py",
                           "old": TAX_ROUND,
                           "new": "    return Money(amount, currency).rounded()"})
    m += [asst([c], "tax.py has its own `_round` with ROUND_HALF_EVEN and a hard-coded 2-decimal exponent; the tests already "
                    "expect half-up, they were passing by luck of the old fixture. I'll route it through Money.rounded()."),
          res(c, f"Applied 1 edit to ledgerline/tax.py (line {L('ledgerline/tax.py', TAX_ROUND)}).")]
    c = call("run_tests", {"args": "-q"})
    m += [asst([c]), res(c, "........................................................................ [ 61%]\n"
                            "...............................................                            [100%]\n"
                            "119 passed in 3.05s\n")]
    m.append(asst(text="The whole suite passes (119 tests). The two tax failures came from tax.py's private `_round`, "
                       "which used banker's rounding; it now uses `Money.rounded()`, so all money rounding goes through one place."))

    # compaction recorded by the agent
    m.append({"role": "system", "summary": True, "ts": ts(3), "content": (
        "[Earlier conversation summary]: The user reported that multi-currency invoice totals were off by a cent "
        "(customer 4471, March: total 1,234.57 EUR vs lines 1,234.56). Cause: Invoice.total converted the unrounded "
        "sum of line nets and rounded once, while lines were rounded individually; money helpers used ROUND_HALF_EVEN. "
        "Changes so far (uncommitted): ledgerline/invoice.py - total is the sum of line.converted(rate); "
        "ledgerline/money.py - MONEY_ROUNDING = ROUND_HALF_UP used by rounded() and convert(); ledgerline/tax.py - "
        "_round uses Money.rounded(); tests/test_invoice.py - test_total_is_sum_of_printed_lines replaces the legacy "
        "test, new test_customer_4471_march_total. Full suite: 119 passed. The user wants to commit next.")})

    # turn 5: commit
    m.append(user("Great. Commit it with a good message."))
    c1, c2 = call("bash", {"command": "git status --short"}), call("bash", {"command": "git diff --stat"})
    m += [asst([c1, c2]),
          res(c1, " M ledgerline/invoice.py\n M ledgerline/money.py\n M ledgerline/tax.py\n M tests/test_invoice.py\n"),
          res(c2, " ledgerline/invoice.py |  2 +-\n ledgerline/money.py   |  8 +++++---\n ledgerline/tax.py     |  6 ++----\n"
                  " tests/test_invoice.py | 16 ++++++++++++----\n 4 files changed, 21 insertions(+), 11 deletions(-)\n")]
    c = call("bash", {"command": "git commit -am \"Invoice total: sum the rounded line amounts; round money half-up\n\n"
                                  "Invoice.total converted the unrounded sum of the line nets and rounded once, so it could\n"
                                  "differ by a cent from the printed lines (customer 4471, March). It is now the sum of the\n"
                                  "converted, rounded lines. Money rounding is ROUND_HALF_UP everywhere via MONEY_ROUNDING,\n"
                                  "including tax.py, which had its own banker's rounding.\""})
    m += [asst([c]), res(c, "[fix/invoice-cent 3f9c2e1] Invoice total: sum the rounded line amounts; round money half-up\n 4 files changed, 21 insertions(+), 11 deletions(-)\n")]
    m.append(asst(text="Committed as 3f9c2e1 on fix/invoice-cent: \"Invoice total: sum the rounded line amounts; round money half-up\"."))

    # turn 6: JPY export
    m.append(user("Also, the CSV export shows JPY amounts with two decimals (\"15200.00\"). JPY has no minor unit. Can you fix that?"))
    c = call("read_file", {"path": "ledgerline/export.py"})
    m += [asst([c]), res(c, read("ledgerline/export.py"))]
    c = call("edit_file", {"path": "ledgerline/export.py", "old": EXPORT_AMOUNT,
                           "new": "        \"amount\": format_amount(line.amount),"})
    m += [asst([c], "export.py formats every amount with `:.2f`. money.py already has `format_amount`, which uses the "
                    "currency's exponent, so I'll use it."),
          res(c, f"Applied 1 edit to ledgerline/export.py (line {L('ledgerline/export.py', EXPORT_AMOUNT)}).")]
    c = call("edit_file", {"path": "ledgerline/export.py", "old": "from .money import Money",
                           "new": "from .money import Money, format_amount"})
    m += [asst([c]), res(c, f"Applied 1 edit to ledgerline/export.py (line {L('ledgerline/export.py', 'from .money import Money')}).")]
    c = call("run_tests", {"args": "tests/test_export.py -q"})
    m += [asst([c]), res(c, "......                                                                   [100%]\n6 passed in 0.22s\n")]
    m.append(asst(text="The CSV export now formats amounts with the currency's own number of decimals, so JPY prints as "
                       "\"15200\" and EUR stays \"1234.56\". tests/test_export.py passes."))

    # turn 7: other hand-formatted amounts
    m.append(user("Does anything else format amounts by hand like that?"))
    c1, c2 = call("grep", {"pattern": r":\.2f", "path": "ledgerline"}), call("grep", {"pattern": r"Decimal\(\"0\.01\"\)", "path": "ledgerline"})
    m += [asst([c1, c2]),
          res(c1, grep(r":\.2f", "ledgerline/reports.py", ('ledgerline/cli.py:118:    click.echo(f"Balance: {balance:.2f}")',))),
          res(c2, "ledgerline/rates.py:33:    return (Decimal(1) / rate).quantize(Decimal(\"0.000001\"))\n")]
    m.append(asst(text=(
        "Three more places format amounts with a fixed two decimals:\n"
        f"- reports.py line {L('ledgerline/reports.py', REPORT_ROW)} (aged-receivables rows) and line {L('ledgerline/reports.py', REPORT_TOTAL)} (the grand total)\n"
        "- cli.py line 118 (`ledgerline balance`), which prints a bare Decimal without its currency\n\n"
        "rates.py only quantizes exchange rates to 6 places, which is fine. The cli.py case needs the account currency "
        "passed through, so it is a slightly bigger change.")))

    # turn 8: fix reports.py
    m.append(user("Fix the two in reports.py, leave cli.py for a separate ticket."))
    c = call("read_file", {"path": "ledgerline/reports.py"})
    m += [asst([c]), res(c, read("ledgerline/reports.py"))]
    c1 = call("edit_file", {"path": "ledgerline/reports.py", "old": REPORT_ROW,
                            "new": "                    format_amount(row.total),"})
    c2 = call("edit_file", {"path": "ledgerline/reports.py",
                            "old": REPORT_TOTAL,
                            "new": "    lines.append(f\"Total outstanding: {format_amount(grand_total)} {grand_total.currency}\")"})
    c3 = call("edit_file", {"path": "ledgerline/reports.py", "old": "from .money import Money",
                            "new": "from .money import Money, format_amount"})
    m += [asst([c1, c2, c3]), res(c1, f"Applied 1 edit to ledgerline/reports.py (line {L('ledgerline/reports.py', REPORT_ROW)})."),
          res(c2, f"Applied 1 edit to ledgerline/reports.py (line {L('ledgerline/reports.py', REPORT_TOTAL)})."),
          res(c3, f"Applied 1 edit to ledgerline/reports.py (line {L('ledgerline/reports.py', 'from .money import Money')}).")]
    c = call("run_tests", {"args": "-q"})
    m += [asst([c]), res(c, "........................................................................ [ 60%]\n"
                            "................................................                           [100%]\n"
                            "120 passed in 3.11s\n")]
    m.append(asst(text="reports.py now uses `format_amount` for the rows and the grand total; the full suite passes "
                       "(120 tests). cli.py line 118 is untouched for the separate ticket."))

    # turn 9: PR description
    m.append(user("Thanks! Write a short PR description covering everything since the commit."))
    m.append(asst(text=(
        "**Format amounts with the currency's exponent in CSV export and reports**\n\n"
        "JPY amounts were exported as `15200.00` because export.py and reports.py formatted every amount with "
        "`:.2f`. Both now use `money.format_amount`, which takes the number of decimals from the currency "
        "(0 for JPY, 2 for EUR/USD, 3 for KWD).\n\n"
        "- ledgerline/export.py: CSV `amount` column\n"
        "- ledgerline/reports.py: aged-receivables rows and the grand total\n\n"
        "Not included: `ledgerline balance` in cli.py prints a bare Decimal without its currency; tracked separately.\n"
        "Tests: full suite, 120 passed."), wait=20))
    add_estimated_usage(m, tools)
    return [header] + m


def add_estimated_usage(messages: list[dict], tools: list[dict]) -> None:
    """Give every assistant line the usage an agent would have logged: the prompt it sent (every earlier
    line from the last compaction on, plus system prompt and tools), counted roughly the way Anthropic's
    tokenizer lands on English and code (about 5% above cl100k), and the reply's length."""
    from inspector.tokens.counters import _cl100k_encoding

    enc = _cl100k_encoding()  # the bundled rank file: nothing downloaded, nothing written to $TMPDIR

    def size(msg: dict) -> int:
        text = msg.get("content") or ""
        for c in msg.get("tool_calls", ()):
            text += c["name"] + c["arguments"]
        return len(enc.encode_ordinary(text)) + 4

    tools_tokens = 346 + sum(len(enc.encode_ordinary(json.dumps(t))) for t in tools)
    start = 0
    cached = 0  # the previous prompt of the same context is read from the prompt cache
    for i, msg in enumerate(messages):
        if msg.get("summary"):
            start, cached = i, 0
        if msg["role"] != "assistant":
            continue
        prompt = tools_tokens + sum(size(x) for j, x in enumerate(messages[:i]) if j >= start or x["role"] == "system")
        prompt = round(prompt * 1.05)
        msg["usage"] = {"input_tokens": 3, "output_tokens": size(msg) + 38,
                        "cache_read_input_tokens": cached, "cache_creation_input_tokens": prompt - cached - 3}
        cached = prompt
        ts_value = msg.pop("ts")
        msg["ts"] = ts_value


def main() -> None:
    write("vendor_onboarding.json", pretty(vendor_onboarding()))
    write("three_questions.json", pretty(three_questions()))
    write("hr_leave_balance.json", pretty(hr_leave_balance()))
    write("coding_agent.jsonl", "\n".join(dumps(line) for line in coding_agent()))


if __name__ == "__main__":
    main()

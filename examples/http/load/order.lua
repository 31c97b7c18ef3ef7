-- wrk's request for axum_service's load routes: POST the order in the file
-- named by the script's argument (`wrk -s order.lua URL -- order.json`),
-- the body the server's `GET /order` serves. Used by ../load.sh.
local req

function init(args)
    local file = assert(io.open(args[1] or "", "rb"), "usage: wrk -s order.lua URL -- BODY_FILE")
    local body = file:read("*a")
    file:close()
    req = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end

function request()
    return req
end

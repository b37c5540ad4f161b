-- Drives Neovim 0.7's own LSP client against "proxylint lsp" (run by
-- TestNeovim): opens nginx.conf, waits for the diagnostics, hovers, applies
-- a fix through vim.lsp.buf.code_action() and writes the files, then opens
-- the fragment, goes to the upstream's definition and suppresses a
-- finding. What it saw goes to $RESULT as JSON; Neovim then quits.
local root, bin, result = os.getenv('WS'), os.getenv('PROXYLINT'), os.getenv('RESULT')
local out = { steps = {} }

local function step(name) table.insert(out.steps, name) end

local function diagnostics(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local related = {}
    for _, r in ipairs((d.user_data and d.user_data.lsp and d.user_data.lsp.relatedInformation) or {}) do
      table.insert(related, vim.fn.fnamemodify(vim.uri_to_fname(r.location.uri), ':t') .. ':' .. r.location.range.start.line)
    end
    local href = d.user_data and d.user_data.lsp and d.user_data.lsp.codeDescription and d.user_data.lsp.codeDescription.href
    table.insert(list, { lnum = d.lnum, col = d.col, code = d.code, source = d.source, message = d.message, href = href or '', related = related })
  end
  table.sort(list, function(a, b) return a.lnum < b.lnum end)
  return list
end

local function has(bufnr, code)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.code == code then return true end
  end
  return false
end

-- request sends a request for the current buffer and returns the result.
local function request(method, params)
  local res = vim.lsp.buf_request_sync(0, method, params, 10000)
  for _, r in pairs(res or {}) do
    if r.result then return r.result end
  end
  return nil
end

-- act runs the code action whose title starts with prefix on line n, as
-- a user picks it from vim.lsp.buf.code_action()'s menu.
local function act(n, prefix)
  vim.api.nvim_win_set_cursor(0, { n, 0 })
  local chosen
  vim.ui.select = function(items, opts, on_choice)
    for _, it in ipairs(items) do
      local title = opts.format_item(it)
      if vim.startswith(title, prefix) then
        chosen = title
        on_choice(it)
        return
      end
    end
    chosen = ''
    on_choice(nil)
  end
  vim.lsp.buf.code_action()
  vim.wait(10000, function() return chosen ~= nil end, 20)
  return chosen
end

local function main()
  local client = vim.lsp.start_client({ name = 'proxylint', cmd = { bin, 'lsp' }, root_dir = root, cmd_cwd = root })
  assert(client, 'the client did not start')

  vim.cmd('edit ' .. root .. '/nginx.conf')
  local main_buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(main_buf, client)
  assert(vim.wait(20000, function() return has(main_buf, 'upstream-no-keepalive') end, 50), 'no diagnostics for nginx.conf')
  out.main = diagnostics(main_buf)
  step('diagnostics')

  vim.api.nvim_win_set_cursor(0, { 3, 6 })
  local hover = request('textDocument/hover', vim.lsp.util.make_position_params())
  out.hover = hover and hover.contents and hover.contents.value or ''
  step('hover')

  out.fix = act(4, 'Add "keepalive 16;"')
  vim.cmd('silent wall')
  -- Writing the two files may be seen half done (the fragment renamed to
  -- its backup, not yet written again): the server lints again when the
  -- disk settles, so the script waits for the state after the fix.
  assert(vim.wait(20000, function() return has(main_buf, 'log-format-blind') and not has(main_buf, 'upstream-no-keepalive') end, 50), 'the fix left the finding')
  out.main_fixed = diagnostics(main_buf)
  step('fix')

  vim.cmd('edit ' .. root .. '/conf.d/app.conf')
  local app_buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(app_buf, client)
  assert(vim.wait(20000, function() return has(app_buf, 'upstream-no-keepalive') end, 50), 'no diagnostics for conf.d/app.conf')
  out.app = diagnostics(app_buf)

  vim.api.nvim_win_set_cursor(0, { 4, 12 })
  local defs = request('textDocument/definition', vim.lsp.util.make_position_params()) or {}
  out.definition = {}
  for _, l in ipairs(defs) do
    table.insert(out.definition, vim.fn.fnamemodify(vim.uri_to_fname(l.uri or l.targetUri), ':t') .. ':' .. (l.range or l.targetSelectionRange).start.line)
  end
  step('definition')

  out.suppress = act(9, 'Suppress upstream-no-keepalive')
  vim.cmd('silent write')
  assert(vim.wait(20000, function() return not has(app_buf, 'upstream-no-keepalive') end, 50), 'the suppression left the finding')
  out.app_suppressed = diagnostics(app_buf)
  step('suppress')
end

local ok, err = pcall(main)
out.ok, out.error = ok, err and tostring(err) or ''
vim.fn.writefile({ vim.fn.json_encode(out) }, result)
vim.cmd('qa!')

-- Neovim's built-in LSP client against `ddplint lsp`, as a user would meet
-- it: open a LibTorch file, read the diagnostics, apply the quick fix of the
-- forward pass that bypasses its wrapper, save, and see that warning go.
-- Run headless: DDPLINT, LSP_FILE, LSP_CACHE and LSP_OUT in the environment.
local out = assert(io.open(os.getenv('LSP_OUT'), 'w'))
local function say(line)
  out:write(line .. '\n')
  out:flush()
end
local function finish()
  out:close()
  vim.cmd('qall!')
end

vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('LSP_FILE')))
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = 'ddplint',
  cmd = { os.getenv('DDPLINT'), 'lsp', '--cache-dir', os.getenv('LSP_CACHE') },
  root_dir = vim.fn.expand('%:p:h'),
})
vim.lsp.buf_attach_client(buf, client)

local function unwrapped()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.message:find('forward pass runs on', 1, true) then
      return d
    end
  end
end

-- The first analysis builds the preamble of <torch/torch.h>.
if not vim.wait(300000, function() return unwrapped() ~= nil end, 100) then
  say('no diagnostics')
  return finish()
end
local diagnostics = vim.diagnostic.get(buf)
table.sort(diagnostics, function(a, b) return a.lnum < b.lnum end)
for _, d in ipairs(diagnostics) do
  say(string.format('diagnostic %d:%d [%s] %s', d.lnum + 1, d.col + 1,
                    d.source or '', d.message:sub(1, 60)))
end

local d = unwrapped()
local params = {
  textDocument = vim.lsp.util.make_text_document_params(buf),
  range = { start = { line = d.lnum, character = d.col },
            ['end'] = { line = d.lnum, character = d.col } },
  context = { diagnostics = {} },
}
local replies = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction',
                                         params, 60000) or {}
for _, reply in pairs(replies) do
  for _, action in ipairs(reply.result or {}) do
    if action.isPreferred then
      vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
      say('applied: ' .. action.title:sub(1, 40))
    end
  end
end
say('line ' .. (d.lnum + 1) .. ':' .. vim.fn.getline(d.lnum + 1))

vim.cmd('write')
if vim.wait(120000, function() return unwrapped() == nil end, 100) then
  say('after saving: ' .. #vim.diagnostic.get(buf) .. ' diagnostics, none about the forward pass')
else
  say('after saving: the warning stayed')
end
vim.lsp.stop_client(client)
finish()

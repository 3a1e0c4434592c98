//===--- Server.cpp - ddplint as a language server ------------------------===//

#include "lsp/Server.h"

#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace llvm;

namespace ddplint::lsp {

namespace {

const json::Object &paramsOf(const json::Object &Message) {
  static const json::Object None;
  const json::Object *P = Message.getObject("params");
  return P ? *P : None;
}

std::string uriOf(const json::Object &Params) {
  const json::Object *Doc = Params.getObject("textDocument");
  std::optional<StringRef> URI = Doc ? Doc->getString("uri") : std::nullopt;
  return URI ? URI->str() : "";
}

/// Applies one entry of didChange's contentChanges to Text: a range and its
/// new text, or the whole new text.
void applyChange(std::string &Text, const json::Object &Change) {
  std::string New = Change.getString("text").value_or("").str();
  const json::Object *Range = Change.getObject("range");
  if (!Range) {
    Text = std::move(New);
    return;
  }
  unsigned Begin = offsetAt(Text, *Range->get("start"));
  unsigned End = std::max(Begin, offsetAt(Text, *Range->get("end")));
  Text.replace(Begin, End - Begin, New);
}

} // namespace

Server::Server(Transport &T, ServerOptions O)
    : T(T), Options(std::move(O)), Lint(Options.Lint) {}

Server::~Server() {
  if (Worker.joinable())
    Worker.join();
}

int Server::run() {
  Worker = std::thread([this] { work(); });
  bool Exited = false;
  while (std::optional<json::Value> Message = T.read()) {
    if (std::optional<StringRef> Broken = Message->getAsString()) {
      T.replyError(nullptr, ErrorCode::ParseError, *Broken);
      continue;
    }
    const json::Object *Object = Message->getAsObject();
    if (!Object) {
      T.replyError(nullptr, ErrorCode::InvalidRequest, "not a message");
      continue;
    }
    if (Object->getString("method") == StringRef("exit")) {
      Exited = true;
      break;
    }
    handle(*Object);
  }
  std::unique_lock<std::mutex> Guard(Lock);
  Stopping = true;
  Wake.notify_all();
  int Code = Exited && ShutDown ? 0 : 1;
  if (Busy) {
    // An analysis may run for seconds more; the editor is gone.
    std::fflush(stdout);
    std::_Exit(Code);
  }
  Guard.unlock();
  Worker.join();
  return Code;
}

void Server::handle(const json::Object &Message) {
  std::optional<StringRef> Method = Message.getString("method");
  const json::Value *Id = Message.get("id");
  if (!Method)
    return; // the client's answer to one of our requests
  if (!Id) {
    onNotification(*Method, paramsOf(Message));
    return;
  }
  if (*Method != "initialize" && !Initialized)
    return T.replyError(*Id, ErrorCode::ServerNotInitialized,
                        "initialize first");
  if (ShutDown)
    return T.replyError(*Id, ErrorCode::InvalidRequestAfterShutdown,
                        "the server is shutting down");
  onRequest(*Method, *Id, paramsOf(Message));
}

void Server::onRequest(StringRef Method, json::Value Id,
                       const json::Object &Params) {
  if (Method == "initialize") {
    T.reply(std::move(Id), initialize(Params));
  } else if (Method == "shutdown") {
    ShutDown = true;
    T.reply(std::move(Id), nullptr);
  } else if (Method == "textDocument/codeAction") {
    codeAction(std::move(Id), Params);
  } else {
    T.replyError(std::move(Id), ErrorCode::MethodNotFound,
                 ("no method " + Method).str());
  }
}

void Server::onNotification(StringRef Method, const json::Object &Params) {
  if (Method == "textDocument/didOpen")
    didOpen(Params);
  else if (Method == "textDocument/didChange")
    didChange(Params);
  else if (Method == "textDocument/didSave")
    didSave(Params);
  else if (Method == "textDocument/didClose")
    didClose(Params);
  else if (Method == "$/cancelRequest")
    if (const json::Value *Id = Params.get("id"))
      cancel(*Id);
}

json::Object Server::initialize(const json::Object &Params) {
  Initialized = true;
  const json::Object *Caps = Params.getObject("capabilities");
  const json::Object *Window = Caps ? Caps->getObject("window") : nullptr;
  ClientProgress =
      Window && Window->getBoolean("workDoneProgress").value_or(false);
  // clangd's initialization option, for editors configured for it.
  if (const json::Object *Init = Params.getObject("initializationOptions"))
    if (std::optional<StringRef> Dir =
            Init->getString("compilationDatabasePath"))
      Lint.setCompileCommandsDir(Dir->str());
  json::Object Sync{{"openClose", true},
                    {"change", 1}, // the whole text on every change
                    {"save", json::Object{{"includeText", false}}}};
  return json::Object{
      {"capabilities",
       json::Object{{"textDocumentSync", std::move(Sync)},
                    {"codeActionProvider",
                     json::Object{{"codeActionKinds",
                                   json::Array{"quickfix"}}}}}},
      {"serverInfo",
       json::Object{{"name", "ddplint"}, {"version", DDPLINT_VERSION}}}};
}

void Server::didOpen(const json::Object &Params) {
  const json::Object *Item = Params.getObject("textDocument");
  std::optional<StringRef> URI = Item ? Item->getString("uri") : std::nullopt;
  std::optional<std::string> Path = URI ? pathFromURI(*URI) : std::nullopt;
  if (!Path)
    return; // not a file on disk: nothing to compile
  SmallString<256> Normal(*Path);
  sys::path::remove_dots(Normal, /*remove_dot_dot=*/true);
  Path = std::string(Normal);
  std::lock_guard<std::mutex> Guard(Lock);
  DocumentState &D = Documents[URI->str()];
  D.Doc = Document{URI->str(), *Path,
                   Item->getInteger("version").value_or(0),
                   Item->getString("text").value_or("").str()};
  schedule(D, Clock::duration::zero());
}

void Server::didChange(const json::Object &Params) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Documents.find(uriOf(Params));
  if (It == Documents.end())
    return;
  DocumentState &D = It->second;
  if (const json::Array *Changes = Params.getArray("contentChanges"))
    for (const json::Value &Change : *Changes)
      if (const json::Object *C = Change.getAsObject())
        applyChange(D.Doc.Text, *C);
  const json::Object *Item = Params.getObject("textDocument");
  D.Doc.Version = Item ? Item->getInteger("version").value_or(D.Doc.Version + 1)
                       : D.Doc.Version + 1;
  schedule(D, Options.Debounce);
}

void Server::didSave(const json::Object &Params) {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Documents.find(uriOf(Params));
  if (It == Documents.end())
    return;
  if (std::optional<StringRef> Text = Params.getString("text"))
    It->second.Doc.Text = Text->str();
  // Headers it includes may have changed on disk: analyse again, now.
  It->second.Analysed = -1;
  schedule(It->second, Clock::duration::zero());
}

void Server::didClose(const json::Object &Params) {
  std::string URI = uriOf(Params);
  std::lock_guard<std::mutex> Guard(Lock);
  if (!Documents.erase(URI))
    return;
  if (Busy && Analysing == URI)
    Stale = true;
  T.notify("textDocument/publishDiagnostics",
           json::Object{{"uri", URI}, {"diagnostics", json::Array{}}});
  answerWaiting(URI); // with nothing: the document is gone
}

void Server::schedule(DocumentState &D, Clock::duration Delay) {
  D.Due = Clock::now() + Delay;
  if (Busy && Analysing == D.Doc.URI)
    Stale = true; // its analysis in progress is of an older text
  Wake.notify_all();
}

void Server::codeAction(json::Value Id, const json::Object &Params) {
  std::string URI = uriOf(Params);
  const json::Value *Range = Params.get("range");
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Documents.find(URI);
  if (It == Documents.end() || !Range)
    return T.reply(std::move(Id), json::Array{});
  WaitingActions.push_back({std::move(Id), URI, *Range});
  if (It->second.Analysed == It->second.Doc.Version)
    answerWaiting(URI);
}

void Server::cancel(const json::Value &Id) {
  std::lock_guard<std::mutex> Guard(Lock);
  for (auto It = WaitingActions.begin(); It != WaitingActions.end(); ++It)
    if (It->Id == Id) {
      T.replyError(It->Id, ErrorCode::RequestCancelled, "cancelled");
      WaitingActions.erase(It);
      return;
    }
}

void Server::answerWaiting(const std::string &URI) {
  auto Doc = Documents.find(URI);
  std::vector<Waiting> Still;
  for (Waiting &W : WaitingActions) {
    if (W.URI != URI) {
      Still.push_back(std::move(W));
      continue;
    }
    if (Doc == Documents.end()) {
      T.reply(W.Id, json::Array{});
      continue;
    }
    const Document &D = Doc->second.Doc;
    const json::Object *R = W.Range.getAsObject();
    unsigned Begin = R ? offsetAt(D.Text, *R->get("start")) : 0;
    unsigned End = R ? offsetAt(D.Text, *R->get("end")) : D.Text.size();
    T.reply(W.Id, codeActions(Doc->second.Findings, D, Begin, End,
                              Options.Output));
  }
  WaitingActions = std::move(Still);
}

Server::DocumentState *
Server::nextDue(std::optional<Clock::time_point> &Next) {
  DocumentState *First = nullptr;
  for (auto &[URI, D] : Documents)
    if (D.Due && (!First || *D.Due < *First->Due))
      First = &D;
  if (First && *First->Due > Clock::now()) {
    Next = *First->Due;
    return nullptr;
  }
  return First;
}

void Server::work() {
  std::unique_lock<std::mutex> Guard(Lock);
  while (!Stopping) {
    std::optional<Clock::time_point> Next;
    DocumentState *D = nextDue(Next);
    if (D)
      analyse(Guard, *D);
    else if (Next)
      Wake.wait_until(Guard, *Next);
    else
      Wake.wait(Guard);
  }
}

void Server::analyse(std::unique_lock<std::mutex> &Guard, DocumentState &D) {
  Document Snapshot = D.Doc;
  D.Due.reset();
  bool Log = !D.Logged;
  D.Logged = true;
  Busy = true;
  Analysing = Snapshot.URI;
  Stale = false;
  Guard.unlock();
  if (Log)
    T.notify("window/logMessage",
             json::Object{{"type", 4},
                          {"message", "ddplint: " + Snapshot.Path + ": " +
                                          Lint.commandSource(Snapshot)}});
  bool Reported = false;
  UnitResult R = Lint.lint(
      Snapshot,
      [&](StringRef What) {
        progress("begin", What);
        Reported = true;
      },
      &Stale);
  if (Reported)
    progress("end", "");
  Guard.lock();
  Busy = false;
  // Closed, or edited meanwhile (and due again): this result is stale.
  auto It = Documents.find(Snapshot.URI);
  if (Stale || It == Documents.end() ||
      It->second.Doc.Version != Snapshot.Version ||
      It->second.Doc.Text != Snapshot.Text)
    return;
  It->second.Analysed = Snapshot.Version;
  It->second.Findings = R.Findings;
  publish(Snapshot, R);
  answerWaiting(Snapshot.URI);
}

void Server::publish(const Document &Doc, const UnitResult &R) {
  json::Array Diagnostics;
  for (const Finding &F : R.Findings) {
    // Findings in its headers belong to those files' own analyses.
    SmallString<256> File(F.Where.File);
    sys::path::remove_dots(File, /*remove_dot_dot=*/true);
    if (File == Doc.Path)
      Diagnostics.push_back(diagnostic(F, Doc, Options.Output));
  }
  if (!R.ToolError.empty())
    Diagnostics.push_back(notice("ddplint could not analyse this file: " +
                                 R.ToolError));
  else if (!R.Vacuous.empty())
    Diagnostics.push_back(notice("ddplint's analysis saw next to nothing: " +
                                 R.Vacuous));
  T.notify("textDocument/publishDiagnostics",
           json::Object{{"uri", Doc.URI},
                        {"version", Doc.Version},
                        {"diagnostics", std::move(Diagnostics)}});
}

void Server::progress(StringRef Kind, StringRef Message) {
  if (!ClientProgress)
    return;
  std::string Token = "ddplint-" + std::to_string(ProgressTokens);
  if (Kind == "begin") {
    Token = "ddplint-" + std::to_string(++ProgressTokens);
    T.request("ddplint-create-" + std::to_string(++RequestIds),
              "window/workDoneProgress/create",
              json::Object{{"token", Token}});
  }
  json::Object Value{{"kind", Kind}};
  if (Kind == "begin") {
    Value["title"] = "ddplint";
    Value["message"] = Message;
  }
  T.notify("$/progress",
           json::Object{{"token", Token}, {"value", std::move(Value)}});
}

} // namespace ddplint::lsp

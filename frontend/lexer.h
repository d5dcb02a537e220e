// The lexer: source text to tokens, by Python's tokenization rules.
//
// Logical lines end in a Newline token; indentation changes become Indent and Dedent tokens (a tab advances
// to the next multiple of 8 columns; indentation whose meaning depends on the tab size is an error, as in
// Python). Blank and comment-only lines produce nothing. Newlines inside (), [] and {} and after a `\` join
// lines. The indentation of the first logical line is the base level, so the text of a method or a nested
// function, handed over with its original indentation, tokenizes like top-level code. The token list always
// ends with Newline (unless empty), the Dedents that close open levels, and EndOfFile.
#pragma once

#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/source.h"
#include "frontend/token.h"

namespace gpujit {

/// Tokenizes a whole file. Errors (an unterminated string, a bad dedent, a malformed number) go to diags;
/// after an error that breaks the line structure the token list is cut short but still well formed.
std::vector<Token> tokenize(const SourceFilePtr& file, Diagnostics& diags);

/// One token per line, "line:col KIND 'text'", for `gpujit --emit tokens` and tests.
std::string dump_tokens(const std::vector<Token>& tokens);

}  // namespace gpujit

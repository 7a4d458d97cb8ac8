#include "program/text.hpp"

#include <algorithm>

namespace program {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) {
      return pieces;
    }
    start = end + 1;
  }
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const std::size_t last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

namespace {

bool continues_a_character(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

// The bytes of the first @p count characters of @p text (all of it if it has fewer).
std::size_t bytes_of_characters(std::string_view text, std::size_t count) {
  std::size_t bytes = 0;
  for (std::size_t shown = 0; bytes < text.size() && shown < count; ++shown) {
    ++bytes;
    while (bytes < text.size() && continues_a_character(text[bytes])) ++bytes;
  }
  return bytes;
}

}  // namespace

std::size_t shown_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char byte) { return !continues_a_character(byte); }));
}

bool is_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    char32_t code_point = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xE0) == 0xC0) {
      length = 2, code_point = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, code_point = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, code_point = lead & 0x07;
    } else {
      return false;  // a continuation byte where a character should start, or 0xF8 and above
    }
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      if ((byte & 0xC0) != 0x80) return false;
      code_point = (code_point << 6) | (byte & 0x3F);
    }
    constexpr char32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code_point < smallest[length] || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
      return false;
    }
    i += length;
  }
  return true;
}

std::string wrapped(std::string_view text, std::size_t width, std::string_view indent) {
  std::string lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    start = end + 1;
    while (!word.empty()) {
      const bool line_is_empty = line.empty() || line == indent;
      const std::size_t separator = line_is_empty ? 0 : 1;
      if (shown_width(line) + separator + shown_width(word) <= width) {
        if (separator) line.push_back(' ');
        line += word;
        break;
      }
      if (line_is_empty) {  // a word wider than a line: as much as fits, the rest on the next
        const std::size_t room = width > shown_width(line) ? width - shown_width(line) : 1;
        const std::size_t cut = bytes_of_characters(word, room);
        line += word.substr(0, cut);
        word.remove_prefix(cut);
      }
      lines += line + '\n';
      line.assign(indent);
    }
  }
  return lines + line + '\n';
}

std::string indented(std::string_view lines, std::string_view first, std::string_view rest) {
  std::string text;
  for (std::size_t start = 0; start < lines.size();) {
    const std::size_t end = std::min(lines.find('\n', start), lines.size() - 1) + 1;
    text += start == 0 ? first : rest;
    text += lines.substr(start, end - start);
    start = end;
  }
  return text;
}

std::string listed(const std::vector<std::string>& items, std::string_view last_join) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      text += i + 1 == items.size() ? " " + std::string(last_join) + " " : ", ";
    }
    text += items[i];
  }
  return text;
}

}  // namespace program

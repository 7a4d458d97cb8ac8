// The main() of a chapter program whose folder has no main.cpp: the build
// (cmake/Book.cmake, book_chapter) compiles this file for it with
// BOOK_CHAPTER_PROGRAM set to the program's name, and links it with the
// chapter's computation, whose program::register_chapter() call registered the
// command line this runs (program/run_chapter.hpp).
#include "program/registered_chapters.hpp"

int main(int argc, char** argv) { return program::run_registered_chapter(BOOK_CHAPTER_PROGRAM, argc, argv); }

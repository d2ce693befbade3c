# Writes OUT: a C file holding the text of FILE as `const char NAME[]` (NUL-terminated).
file(READ ${FILE} text HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," text "${text}")
file(WRITE ${OUT} "/* Generated from ${FILE} by schemas/embed_text.cmake. Do not edit. */\nconst char ${NAME}[] = {${text}0x00};\n")

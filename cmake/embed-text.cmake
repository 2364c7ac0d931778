# Turns one text file into a C string: const char NAME[] = "...";
# Invoked as: cmake -DOUT=file.c -DIN=page.html -DNAME=symbol -P embed-text.cmake
file(READ ${IN} text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
get_filename_component(name ${IN} NAME)
file(WRITE ${OUT}.tmp "/* Generated from ${name} by cmake/embed-text.cmake. */\nconst char ${NAME}[] =\n\"${text}\";\n")
file(RENAME ${OUT}.tmp ${OUT})

# cmake -DMODULE=PATH -DXML=PATH [-DCOPY=PATH] -P WriteModuleDescription.cmake
# Writes the module's description (MODULE --xml) to XML (and COPY), each only when it changed, so
# that the file keeps its time and GenerateCLP does not run again for nothing.
execute_process(COMMAND ${MODULE} --xml OUTPUT_VARIABLE description ERROR_VARIABLE error RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT description MATCHES "^<\\?xml ")
  message(FATAL_ERROR "${MODULE} --xml failed (${status}): ${error}")
endif()
file(WRITE ${XML}.new "${description}")
foreach(destination ${XML} ${COPY})
  execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${XML}.new ${destination})
endforeach()
file(REMOVE ${XML}.new)

# ctest tests of the command-line apps, included from examples/CMakeLists.txt when BUILD_TESTING is on
# (the top-level CMakeLists.txt calls enable_testing() before adding examples/).
find_program(CBCT_BASH bash REQUIRED)
set(cbct_app_tests ${PROJECT_SOURCE_DIR}/test/apps)
set(cbct_app_work ${CMAKE_BINARY_DIR}/test/apps)
set(cbct_bin $<TARGET_FILE_DIR:cbct-fdk>)
# Each test writes in its own folder of ${cbct_app_work}, removed when it ends, passed or failed
# (CBCT_KEEP_TEST_FILES=1 keeps it): a shell script through test_folder.sh's cbct_test_folder, any
# other command run by test_folder.sh itself (cbct_in_test_folder DIR COMMAND...).
set(cbct_in_test_folder ${CBCT_BASH} ${cbct_app_tests}/test_folder.sh)

# --help on every app: usage on stdout, exit code 0.
foreach(app IN LISTS cbct_apps)
  add_test(NAME apps.${app}.help COMMAND ${CBCT_BASH} ${cbct_app_tests}/expect_help.sh $<TARGET_FILE:${app}>)
endforeach()

# simulate -> fdk -> compare through .nrrd, .nii, .tif and .mha, one file or a directory of files.
add_test(NAME apps.end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/end_to_end.sh ${cbct_bin} ${cbct_app_work}/end_to_end)
set_tests_properties(apps.end_to_end PROPERTIES TIMEOUT 300)

# cbct-fdk on a source offset (no displaced-detector weighting) and a half fan (weighted), with --verbose.
add_test(NAME apps.fdk_geometry
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/fdk_geometry.sh ${cbct_bin} ${cbct_app_work}/fdk_geometry)
set_tests_properties(apps.fdk_geometry PROPERTIES TIMEOUT 300)
# A TIFF stack (no origin in the format): the detector centred, --verbose says so, --new-origin still wins.
add_test(NAME apps.detector_origin
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/detector_origin.sh ${cbct_bin} ${cbct_app_work}/detector_origin)
set_tests_properties(apps.detector_origin PROPERTIES TIMEOUT 300)
# A detector beside the rotation axis (a header whose spacing alone was negated, a wrong origin) refused by
# cbct-fdk, a reversed stack and half fans still reconstructed, cbct-sart warning.
set(cbct_detector_axis_mpi)
if(CBCT_USE_MPI AND MPIEXEC_EXECUTABLE)
  set(cbct_detector_axis_mpi ${MPIEXEC_EXECUTABLE}) # and under mpirun
endif()
add_test(NAME apps.detector_axis
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/detector_axis.sh ${cbct_bin} ${cbct_app_work}/detector_axis ${cbct_detector_axis_mpi})
set_tests_properties(apps.detector_axis PROPERTIES TIMEOUT 300 LABELS badinput PROCESSORS 2)

# cbct-calibrate on a miscalibrated micro-CT-like scan (offset and roll recovered, the report, a fit it
# cannot give refused), cbct-import --calibrate and cbct-fdk --scan --calibrate on an Elekta XVI folder.
add_test(NAME apps.calibrate_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/calibrate_end_to_end.sh ${cbct_bin} ${cbct_app_work}/calibrate_end_to_end)
set_tests_properties(apps.calibrate_end_to_end PROPERTIES TIMEOUT 600 PROCESSORS 2)

# cbct-simulate --emission -> cbct-osem with and without the attenuation and blur models -> compare, and
# cbct-forward --fp emission.
add_test(NAME apps.emission_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/emission_end_to_end.sh ${cbct_bin} ${cbct_app_work}/emission_end_to_end)
set_tests_properties(apps.emission_end_to_end PROPERTIES TIMEOUT 300)
# simulate (few views) -> asdpocs / admmtv -> compare, and --time-limit.
add_test(NAME apps.tv_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/tv_end_to_end.sh ${cbct_bin} ${cbct_app_work}/tv_end_to_end)
set_tests_properties(apps.tv_end_to_end PROPERTIES TIMEOUT 300)
# cbct-compare --report DIR: the page, its embedded PNG, metrics and provenance; bad DIRs refused.
add_test(NAME apps.compare_report
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/compare_report.sh ${cbct_bin} ${cbct_app_work}/compare_report)
set_tests_properties(apps.compare_report PROPERTIES TIMEOUT 120)
# A newcomer's first command: every iterative app's defaults on a few-view scan, bounds on the MAE.
add_test(NAME apps.first_run_defaults
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/first_run_defaults.sh ${cbct_bin} ${cbct_app_work}/first_run_defaults)
set_tests_properties(apps.first_run_defaults PROPERTIES TIMEOUT 120)
# 4D CBCT: cbct-simulate --breathing (projections, geometry, the phases file beside).
add_test(NAME apps.breathing_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/breathing_end_to_end.sh ${cbct_bin} ${cbct_app_work}/breathing_end_to_end)
set_tests_properties(apps.breathing_end_to_end PROPERTIES TIMEOUT 300)
# cbct-fourdfdk: a breathing scan to a 4D .mha and one file per frame; bad phase files refused.
add_test(NAME apps.fourdfdk_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/fourdfdk_end_to_end.sh ${cbct_bin} ${cbct_app_work}/fourdfdk_end_to_end)
set_tests_properties(apps.fourdfdk_end_to_end PROPERTIES TIMEOUT 300)
# cbct-fourdrooster: a breathing scan to a 4D .mha, --input and --motionmask; bad inputs refused.
add_test(NAME apps.fourdrooster_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/fourdrooster_end_to_end.sh ${cbct_bin} ${cbct_app_work}/fourdrooster_end_to_end)
set_tests_properties(apps.fourdrooster_end_to_end PROPERTIES TIMEOUT 300 LABELS badinput)

# Several processes through MPI (CPU): slabs equal to one process bit for bit, failures end the job.
if(CBCT_USE_MPI AND MPIEXEC_EXECUTABLE)
  add_test(NAME apps.mpi_end_to_end
    COMMAND ${CBCT_BASH} ${cbct_app_tests}/mpi_end_to_end.sh ${cbct_bin} ${cbct_app_work}/mpi_end_to_end ${MPIEXEC_EXECUTABLE})
  set_tests_properties(apps.mpi_end_to_end PROPERTIES TIMEOUT 600 PROCESSORS 2)
endif()

# simulate -> sart / cgls / osem -> compare, and cbct-forward.
add_test(NAME apps.iterative_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/iterative_end_to_end.sh ${cbct_bin} ${cbct_app_work}/iterative_end_to_end)
set_tests_properties(apps.iterative_end_to_end PROPERTIES TIMEOUT 300)

# RTK's command lines and grid options (--size, single and repeated values, --like, --direction, RTK's names).
add_test(NAME apps.rtk_command_line
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/rtk_command_line.sh ${cbct_bin} ${cbct_app_work}/rtk_command_line)
set_tests_properties(apps.rtk_command_line PROPERTIES TIMEOUT 300)

# Real-scan preprocessing: 16-bit noisy readings with a dark current, crop, binning, median, --pad.
add_test(NAME apps.preprocess
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/preprocess.sh ${cbct_bin} ${cbct_app_work}/preprocess)
set_tests_properties(apps.preprocess PROPERTIES TIMEOUT 600)
# Ring removal: detector columns with a gain off (cbct-simulate --column-gains), cbct-fdk --rings.
add_test(NAME apps.rings
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/rings.sh ${cbct_bin} ${cbct_app_work}/rings)
set_tests_properties(apps.rings PROPERTIES TIMEOUT 600)
# Outputs renamed into place when complete: a killed or failed writer leaves the previous output.
add_test(NAME apps.write_safety
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/write_safety.sh ${cbct_bin} ${cbct_app_work}/write_safety)
set_tests_properties(apps.write_safety PROPERTIES TIMEOUT 300)

# Bad input: exit code 1 and one line "APP: error: ..." naming the option and the value. (In the
# patterns '.' stands for the ';' of "X is V; expected E": a ';' would split the CMake argument.)
add_test(NAME apps.bad_input.setup
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/make_inputs.sh ${cbct_bin} ${cbct_app_work}/bad_input)
set_tests_properties(apps.bad_input.setup PROPERTIES FIXTURES_SETUP cbct_bad_input)
# The bad-input tests share the inputs' folder: removed after the last of them (CBCT_KEEP_TEST_FILES=1 keeps it).
add_test(NAME apps.bad_input.cleanup COMMAND ${cbct_in_test_folder} --remove ${cbct_app_work}/bad_input)
set_tests_properties(apps.bad_input.cleanup PROPERTIES FIXTURES_CLEANUP cbct_bad_input)

# cbct_bad_input_test(NAME APP PATTERN ARGUMENTS...): APP ARGUMENTS must fail with exit code 1 and one
# line "APP: error: ..." matching PATTERN, and leave no output: an argument "out.EXT" becomes
# "NAME.out.EXT" (each test its own output), and the files after -o/--output/--profile/--screenshot
# (and cbct-simulate's -g/--geometry) must not exist afterwards, nor any partial output beside them.
# cbct_bad_input_test_keeping(NAME APP PATTERN FILE ARGUMENTS...): the same, and FILE (an input the
# command names as its output, or an output there before) must be byte for byte unchanged.
# Every such test has the ctest label badinput.
function(cbct_bad_input_command name app pattern keep)
  set(arguments)
  set(checks)
  set(output_next FALSE)
  foreach(argument IN LISTS ARGN)
    if(argument MATCHES "^out\\.")
      set(argument "${name}.${argument}")
    endif()
    if(output_next AND NOT argument STREQUAL "${keep}")
      list(APPEND checks --absent ${argument})
    endif()
    set(output_next FALSE)
    if(argument MATCHES "^(-o|--output|--profile|--screenshot)$"
       OR (app MATCHES "^cbct-(simulate|import)$" AND argument MATCHES "^(-g|--geometry)$"))
      set(output_next TRUE)
    endif()
    list(APPEND arguments ${argument})
  endforeach()
  if(keep)
    list(APPEND checks --unchanged ${keep})
  endif()
  add_test(NAME apps.bad_input.${name}
    COMMAND ${CBCT_BASH} ${cbct_app_tests}/expect_error.sh ${app} "${pattern}" ${checks} -- $<TARGET_FILE:${app}>
            ${arguments}
    WORKING_DIRECTORY ${cbct_app_work}/bad_input)
  set_tests_properties(apps.bad_input.${name} PROPERTIES FIXTURES_REQUIRED cbct_bad_input LABELS badinput)
endfunction()
function(cbct_bad_input_test name app pattern)
  cbct_bad_input_command(${name} ${app} "${pattern}" "" ${ARGN})
endfunction()
function(cbct_bad_input_test_keeping name app pattern keep)
  cbct_bad_input_command(${name} ${app} "${pattern}" ${keep} ${ARGN})
endfunction()

set(recon_inputs -g g10.xml --projections p10.mha -o out.mha --dimension 16 --spacing 8)
# cbct-calibrate and --calibrate: bad options, a method not in the build, too few views; nothing written.
cbct_bad_input_test(calibrate_fit_unknown cbct-calibrate "--fit is 'offset,yaw'. expected a comma-separated list of offset, roll and tilt"
  -g g10.xml --projections p10.mha -o out.xml --fit offset,yaw)
cbct_bad_input_test(calibrate_roll_without_offset cbct-calibrate "--fit is 'roll'. expected offset with roll"
  -g g10.xml --projections p10.mha -o out.xml --fit roll)
cbct_bad_input_test(calibrate_method_beads cbct-calibrate "--method beads: the bead-phantom calibration is not part of this build yet"
  -g g10.xml --projections p10.mha -o out.xml --method beads)
cbct_bad_input_test(calibrate_method_unknown cbct-calibrate "--method is 'manual'. expected auto, opposite, sharpness or beads"
  -g g10.xml --projections p10.mha -o out.xml --method manual)
cbct_bad_input_test(calibrate_opposite_tilt cbct-calibrate "--fit is 'offset,tilt'. expected offset and/or roll with --method opposite"
  -g g10.xml --projections p10.mha -o out.xml --method opposite --fit offset,tilt)
cbct_bad_input_test(calibrate_offset_model cbct-calibrate "--offset-as is 'table'. expected stage"
  -g g10.xml --projections p10.mha -o out.xml --offset-as table)
cbct_bad_input_test(calibrate_range_negative cbct-calibrate "--range is -2. expected a half-width in detector pixels >= 0"
  -g g10.xml --projections p10.mha -o out.xml --range -2)
cbct_bad_input_test(calibrate_too_few_views cbct-calibrate "could not calibrate --geometry g10.xml \\(no geometry written\\): .*10 projections; at least 24 are needed"
  -g g10.xml --projections p10.mha -o out.xml)
cbct_bad_input_test(calibrate_report_is_a_file cbct-calibrate "--report is 'p10.mha'. expected a directory to write the report into"
  -g g10.xml --projections p10.mha -o out.xml --report p10.mha)
cbct_bad_input_test(calibrate_projection_count cbct-calibrate "--geometry g10.xml has 10 projections; the projections hold 12"
  -g g10.xml --projections p12.mha -o out.xml)
cbct_bad_input_test(fdk_calibrate_without_scan cbct-fdk "--calibrate without --scan"
  -g g10.xml --projections p10.mha -o out.mha --calibrate)
cbct_bad_input_test(simulate_nproj_0 cbct-simulate "--nproj is 0. expected an integer >= 1"
  -g out.xml -o out.mha --nproj 0)
cbct_bad_input_test(simulate_sid_negative cbct-simulate "--sid is -5. expected a source-to-isocenter distance > 0"
  -g out.xml -o out.mha --sid -5)
cbct_bad_input_test(simulate_detector_size cbct-simulate "--detector-size is '12,x'. expected an integer N >= 1 or U,V"
  -g out.xml -o out.mha --detector-size 12,x)
cbct_bad_input_test(simulate_unknown_option cbct-simulate "--bogus"
  -g out.xml -o out.mha --bogus 3)
cbct_bad_input_test(simulate_missing_phantom_file cbct-simulate "--phantom is 'nophantom.txt'. expected an existing phantom file"
  -g out.xml -o out.mha --phantom nophantom.txt)
# A wobbling orbit and the phantom's description (bead calibration's inputs).
cbct_bad_input_test(simulate_wobble_one_value cbct-simulate "--wobble is '2'. expected SOURCE_MM,ANGLE_DEGREES"
  -g out.xml -o out.mha --phantom beads --wobble 2)
cbct_bad_input_test(simulate_wobble_negative cbct-simulate "--wobble is '2,-1'. expected SOURCE_MM,ANGLE_DEGREES"
  -g out.xml -o out.mha --wobble 2,-1)
cbct_bad_input_test(simulate_wobble_parallel cbct-simulate "--wobble: moves a cone-beam source. a parallel scan"
  -g out.xml -o out.mha --sdd 0 --wobble 2,1)
cbct_bad_input_test(simulate_phantom_output_directory cbct-simulate
  "--phantom-output is 'nodir/beads.txt'. expected a file in an existing directory"
  -g out.xml -o out.mha --phantom beads --phantom-output nodir/beads.txt)
cbct_bad_input_test(fdk_missing_geometry cbct-fdk "--geometry is 'missing.xml'. expected an existing geometry file \\(no such file\\)"
  -g missing.xml --projections p10.mha -o out.mha)
cbct_bad_input_test(fdk_malformed_geometry cbct-fdk "--geometry: mismatched tag.*malformed.xml"
  -g malformed.xml --projections p10.mha -o out.mha)
cbct_bad_input_test(fdk_projection_count cbct-fdk "--projections p12.mha with --geometry g10.xml: number of projection images is 12. expected the geometry's number of projections \\(10\\)"
  -g g10.xml --projections p12.mha -o out.mha --dimension 16 --spacing 8)
cbct_bad_input_test(fdk_unreadable_projections cbct-fdk "--projections is 'garbage.mha'. expected an image ITK can read"
  -g g10.xml --projections garbage.mha -o out.mha)
cbct_bad_input_test(fdk_missing_projections cbct-fdk "--projections is 'nothing.mha'. expected an existing image file"
  -g g10.xml --projections nothing.mha -o out.mha)
cbct_bad_input_test(fdk_no_matching_files cbct-fdk "--regexp is 'nothing_.*'. expected a regular expression matching files in --path . \\(none matched\\)"
  -g g10.xml --path . --regexp "nothing_.*" -o out.mha)
cbct_bad_input_test(fdk_numeric_sort_on_text cbct-fdk "--submatch is 0. expected with --nsort, a group of --regexp that is a number in every matching file name"
  -g g10.xml --path . --regexp "^p1[02][.]mha$" --nsort -o out.mha)
cbct_bad_input_test(fdk_window cbct-fdk "--window is 'gaussian'. expected one of ramlak, shepplogan, cosine, hamming, hann"
  ${recon_inputs} --window gaussian)
cbct_bad_input_test(fdk_cutoff cbct-fdk "--cutoff is 2. expected a fraction of the Nyquist frequency in \\(0, 1\\]"
  ${recon_inputs} --cutoff 2)
cbct_bad_input_test(fdk_dimension cbct-fdk "--dimension is '0'. expected an integer N >= 1 or X,Y,Z"
  -g g10.xml --projections p10.mha -o out.mha --dimension 0)
cbct_bad_input_test(fdk_output_format cbct-fdk "--output is '[a-z_]*.out.xyz'. expected an image file name whose extension names a format"
  -g g10.xml --projections p10.mha -o out.xyz)
cbct_bad_input_test(fdk_hardware cbct-fdk "--hardware is 'gpu'. expected cpu, cuda or auto"
  ${recon_inputs} --hardware gpu)
cbct_bad_input_test(fdk_i0_negative cbct-fdk "--i0 is -5. expected the intensity through air, > 0, or 0 to estimate it"
  ${recon_inputs} --i0 -5)
cbct_bad_input_test(fdk_i0_below_dark cbct-fdk "--i0 is 100. expected an intensity above --idark \\(200"
  ${recon_inputs} --i0 100 --idark 200)
cbct_bad_input_test(fdk_idark_on_line_integrals cbct-fdk "--idark: the files hold floating-point values, read as line integrals"
  ${recon_inputs} --idark 100)
cbct_bad_input_test(fdk_spr_on_line_integrals cbct-fdk "--spr: the scatter correction works on intensities"
  ${recon_inputs} --spr 0.2)
cbct_bad_input_test(fdk_binning_projections cbct-fdk "--binning is '2,2,2'. expected factors U.,V., integers >= 1 \\(the projection axis cannot be binned"
  ${recon_inputs} --binning 2,2,2)
cbct_bad_input_test(fdk_crop_everything cbct-fdk "--projections: preprocessing: crop along u \\(columns\\) is 30 \\+ 30. expected fewer than the"
  ${recon_inputs} --lowercrop 30 --uppercrop 30)
cbct_bad_input_test(fdk_radius cbct-fdk "--radius is '1,x'. expected radii"
  ${recon_inputs} --radius 1,x)
cbct_bad_input_test(fdk_wpc cbct-fdk "--wpc is '1,x'. expected coefficients c0.,c1,c2,...."
  ${recon_inputs} --wpc 1,x)
cbct_bad_input_test(fdk_rings_method cbct-fdk "--rings is 'fourier'. expected none, sorting \\(Vo et al. 2018\\) or wavelet"
  ${recon_inputs} --rings fourier)
cbct_bad_input_test(fdk_rings_size_wider_than_the_detector cbct-fdk "--projections: preprocessing: ring removal size is 999. expected at most the [0-9]+ pixels"
  ${recon_inputs} --rings sorting --rings-size 999)
cbct_bad_input_test(fdk_rings_snr cbct-fdk "--rings-snr is -1. expected a finite value >= 0"
  ${recon_inputs} --rings sorting --rings-snr -1)
cbct_bad_input_test(fdk_rings_parameter_of_another_method cbct-fdk "--rings-sigma: a parameter of --rings wavelet, and --rings is sorting"
  ${recon_inputs} --rings sorting --rings-sigma 3)
cbct_bad_input_test(fdk_rings_wavelet cbct-fdk "--rings-wavelet is 'sym5'. expected one of haar, db1"
  ${recon_inputs} --rings wavelet --rings-wavelet sym5)
cbct_bad_input_test(sart_rings_sigma cbct-sart "--rings-sigma is -1. expected a finite value > 0"
  ${recon_inputs} --rings wavelet --rings-sigma -1)
cbct_bad_input_test(simulate_column_gains cbct-simulate "--column-gains is '400:0.02'. expected U:G pairs"
  -g out.xml -o out.mha --detector-size 64 --column-gains 400:0.02)
cbct_bad_input_test(fdk_pad cbct-fdk "--pad is -1. expected a fraction of the detector width >= 0"
  ${recon_inputs} --pad -1)
cbct_bad_input_test(fdk_hann_and_window cbct-fdk "--hann and --window/--cutoff: --hann C is --window hann --cutoff C"
  ${recon_inputs} --hann 0.5 --window cosine)
cbct_bad_input_test(fdk_hanny cbct-fdk "--hannY is 2. expected a cut-off in \\(0, 1\\]"
  ${recon_inputs} --hannY 2)
cbct_bad_input_test(fdk_fov cbct-fdk "--fov is 'empty'. expected zero \\(the default when --fov is given alone\\), nan or off"
  ${recon_inputs} --fov empty)
cbct_bad_input_test(fdk_like_and_dimension cbct-fdk "--like and --dimension/--size/--spacing/--origin/--direction: --like gives the whole grid"
  -g g10.xml --projections p10.mha -o out.mha --like p10.mha --dimension 16)
cbct_bad_input_test(fdk_like_missing cbct-fdk "--like is 'nothing.mha'. expected an existing image file"
  -g g10.xml --projections p10.mha -o out.mha --like nothing.mha)
cbct_bad_input_test(fdk_direction cbct-fdk "--direction is '1,0,0,0,2,0,0,0,1'. expected 9 values of an orthonormal matrix"
  ${recon_inputs} --direction 1,0,0,0,2,0,0,0,1)
cbct_bad_input_test(fdk_origin_four cbct-fdk "--origin is '1,2,3,4'. expected X.,Y.,Z.. in mm"
  ${recon_inputs} --origin 1,2,3,4)
cbct_bad_input_test(sart_input_and_like cbct-sart "--input and --dimension/--size/--spacing/--origin/--direction/--like"
  -g g10.xml --projections p10.mha -o out.mha --input p10.mha --like p10.mha)
cbct_bad_input_test(sart_bp_rtk_mismatch cbct-sart "--bp is 'CudaRayCast'. expected adjoint or voxel \\(RTK's CudaRayCast backprojector is the adjoint of --fp CudaRayCast, and --fp is joseph"
  ${recon_inputs} --bp CudaRayCast)
cbct_bad_input_test(forward_dimension_count cbct-forward "--dimension is '16,16,7'. expected U.V, or U.V.N with N the number of projections of --geometry \\(10\\)"
  -g g10.xml -i p10.mha -o out.mha --dimension 16,16,7)
cbct_bad_input_test(simulate_idark_without_i0 cbct-simulate "--idark: simulates detector readings. give --i0 too"
  -g out.xml -o out.mha --idark 10)
if(NOT CBCT_USE_CUDA)
  cbct_bad_input_test(fdk_hardware_cuda_in_cpu_build cbct-fdk
    "^cbct-fdk: error: --hardware cuda: this build has no CUDA \\(configure with nvcc available\\)$"
    ${recon_inputs} --hardware cuda)
endif()
cbct_bad_input_test(sart_niterations_0 cbct-sart "--niterations is 0. expected an integer >= 1"
  ${recon_inputs} --niterations 0)
cbct_bad_input_test(sart_lambda_0 cbct-sart "--lambda is 0. expected a finite relaxation factor > 0"
  ${recon_inputs} --lambda 0)
cbct_bad_input_test(sart_nprojpersubset cbct-sart
  "--nprojpersubset is 11. expected at most the number of projections of --geometry \\(10\\), or 0 for all"
  ${recon_inputs} --nprojpersubset 11)
cbct_bad_input_test(sart_fp cbct-sart "--fp is 'siddon'. expected joseph or raycast" ${recon_inputs} --fp siddon)
cbct_bad_input_test(sart_step_negative cbct-sart
  "--step is -1. expected a finite ray-cast sample distance > 0 in mm, or 0 for the smallest voxel spacing"
  ${recon_inputs} --fp raycast --step -1)
cbct_bad_input_test(cgls_step_negative cbct-cgls "--step is -0.5. expected a finite ray-cast sample distance > 0"
  ${recon_inputs} --fp raycast --step -0.5)
cbct_bad_input_test(osem_hardware cbct-osem "--hardware is 'gpu'. expected cpu or cuda" ${recon_inputs} --hardware gpu)
# --bp (cbct-sart and cbct-osem only: CGLS needs the exact adjoint, cbct-forward backprojects nothing).
cbct_bad_input_test(sart_bp cbct-sart "--bp is 'foo'. expected adjoint or voxel" ${recon_inputs} --bp foo)
cbct_bad_input_test(osem_bp cbct-osem "--bp is 'voxels'. expected adjoint or voxel" ${recon_inputs} --bp voxels)
cbct_bad_input_test(cgls_bp_not_offered cbct-cgls "--bp" ${recon_inputs} --bp voxel)
cbct_bad_input_test(admmtv_bp_not_offered cbct-admmtv "--bp" ${recon_inputs} --bp voxel)
cbct_bad_input_test(asdpocs_bp cbct-asdpocs "--bp is 'exact'. expected adjoint or voxel" ${recon_inputs} --bp exact)
cbct_bad_input_test(forward_bp_not_offered cbct-forward "--bp" -g g10.xml -i p10.mha -o out.mha --bp adjoint)
# --hardware cuda without a device (or without CUDA in the build): one clear line. Skipped (77) where a
# device runs it.
function(cbct_cuda_error_test name app)
  if(CBCT_USE_CUDA)
    set(pattern "^${app}: error: --hardware cuda: no CUDA device")
  else()
    set(pattern "^${app}: error: --hardware cuda: this build has no CUDA \\(configure with nvcc available\\)$")
  endif()
  add_test(NAME apps.bad_input.${name}
    COMMAND ${CBCT_BASH} ${cbct_app_tests}/expect_cuda_error.sh ${app} "${pattern}" $<TARGET_FILE:${app}> ${ARGN}
    WORKING_DIRECTORY ${cbct_app_work}/bad_input)
  set_tests_properties(apps.bad_input.${name} PROPERTIES FIXTURES_REQUIRED cbct_bad_input SKIP_RETURN_CODE 77
    LABELS badinput)
endfunction()
cbct_cuda_error_test(sart_hardware_cuda cbct-sart ${recon_inputs} --hardware cuda)
cbct_cuda_error_test(cgls_hardware_cuda cbct-cgls ${recon_inputs} --hardware cuda)
cbct_cuda_error_test(osem_hardware_cuda cbct-osem ${recon_inputs} --hardware cuda --fp raycast)
cbct_cuda_error_test(asdpocs_hardware_cuda cbct-asdpocs ${recon_inputs} --hardware cuda)
cbct_cuda_error_test(admmtv_hardware_cuda cbct-admmtv ${recon_inputs} --hardware cuda)
cbct_cuda_error_test(forward_hardware_cuda cbct-forward -g g10.xml -i p10.mha -o out.mha --hardware cuda)
cbct_cuda_error_test(simulate_emission_hardware_cuda cbct-simulate -g out.xml -o out.mha --emission --hardware cuda)
cbct_bad_input_test(sart_projection_count cbct-sart
  "--projections p12.mha with --geometry g10.xml: number of projection images is 12"
  -g g10.xml --projections p12.mha -o out.mha --dimension 16 --spacing 8)
cbct_bad_input_test(cgls_niterations_0 cbct-cgls "--niterations is 0. expected an integer >= 1"
  ${recon_inputs} --niterations 0)
cbct_bad_input_test(osem_niterations_0 cbct-osem "--niterations is 0. expected an integer >= 1"
  ${recon_inputs} --niterations 0)
cbct_bad_input_test(sart_time_limit cbct-sart "--time-limit is -1. expected a finite number of seconds >= 0"
  ${recon_inputs} --time-limit -1)
cbct_bad_input_test(asdpocs_alpha cbct-asdpocs "--alpha is -0.5. expected a finite value >= 0"
  ${recon_inputs} --alpha -0.5)
cbct_bad_input_test(asdpocs_alpha_red cbct-asdpocs "--alpha-red is 1.5. expected a reduction factor in \\(0, 1\\]"
  ${recon_inputs} --alpha-red 1.5)
cbct_bad_input_test(asdpocs_lambda_red cbct-asdpocs "--lambda-red is 0. expected a reduction factor in \\(0, 1\\]"
  ${recon_inputs} --lambda-red 0)
cbct_bad_input_test(asdpocs_ratio cbct-asdpocs "--ratio is 0. expected a finite value > 0" ${recon_inputs} --ratio 0)
cbct_bad_input_test(asdpocs_tviter cbct-asdpocs "--tviter is -2. expected an integer >= 0" ${recon_inputs} --tviter -2)
cbct_bad_input_test(asdpocs_maxl2err cbct-asdpocs "--maxl2err is -1. expected a finite value >= 0" ${recon_inputs} --maxl2err -1)
cbct_bad_input_test(asdpocs_tv_epsilon cbct-asdpocs "--tv-epsilon is -1. expected a finite value >= 0" ${recon_inputs} --tv-epsilon -1)
cbct_bad_input_test(asdpocs_nprojpersubset cbct-asdpocs
  "--nprojpersubset is 11. expected at most the number of projections of --geometry \\(10\\), or 0 for all"
  ${recon_inputs} --nprojpersubset 11)
cbct_bad_input_test(admmtv_beta cbct-admmtv "--beta is 0. expected a finite augmented Lagrangian weight > 0"
  ${recon_inputs} --beta 0)
cbct_bad_input_test(admmtv_alpha cbct-admmtv "--alpha is -1. expected a finite regularisation weight >= 0"
  ${recon_inputs} --alpha -1)
cbct_bad_input_test(admmtv_cgiter cbct-admmtv "--CGiter is 0. expected an integer >= 1" ${recon_inputs} --CGiter 0)
cbct_bad_input_test(admmtv_init cbct-admmtv "--init is 'ones'. expected one of fdk, zero" ${recon_inputs} --init ones)
cbct_bad_input_test(osem_nprojpersubset cbct-osem
  "--nprojpersubset is 11. expected at most the number of projections of --geometry \\(10\\), or 0 for all"
  ${recon_inputs} --nprojpersubset 11)
cbct_bad_input_test(forward_step_negative cbct-forward "--step is -2. expected a finite ray-cast sample distance > 0"
  -g g10.xml -i p10.mha -o out.mha --fp raycast --step -2)
cbct_bad_input_test(forward_fp cbct-forward "--fp is 'Siddon'. expected joseph, raycast or emission"
  -g g10.xml -i p10.mha -o out.mha --fp Siddon)
# Emission (SPECT): the attenuation map, the collimator blur, the projector they need, negative counts;
# cbct-simulate's emission options; FDK on parallel beam.
set(emission_inputs -g ge10.xml --projections pe10.mha -o out.mha --dimension 10 --spacing 8)
cbct_bad_input_test(osem_attenuation_negative cbct-osem
  "--attenuation negmu.mha: attenuation map at voxel \\(0, 0, 0\\) is -0.5. expected a finite value >= 0"
  ${emission_inputs} --attenuation negmu.mha)
cbct_bad_input_test(osem_attenuation_missing cbct-osem "--attenuation is 'nothing.mha'. expected an existing image file"
  ${emission_inputs} --attenuation nothing.mha)
cbct_bad_input_test(osem_psf_count cbct-osem "--psf is '2'. expected SIGMA0,SLOPE" ${emission_inputs} --psf 2)
cbct_bad_input_test(osem_psf_negative cbct-osem "--psf is '1,-0.1'. expected SIGMA0,SLOPE.*>= 0" ${emission_inputs} --psf 1,-0.1)
cbct_bad_input_test(osem_fp_with_attenuation cbct-osem
  "--fp is 'joseph'. expected emission \\(or left out\\) with --attenuation or --psf"
  ${emission_inputs} --fp joseph --attenuation mu.mha)
cbct_bad_input_test(osem_bp_with_emission cbct-osem "--bp is 'voxel'. expected adjoint with the emission projector"
  ${emission_inputs} --bp voxel --psf 1,0.02)
cbct_bad_input_test(osem_negative_counts cbct-osem
  "--projections pneg.mha: projection value at pixel \\([0-9]+, [0-9]+\\) of projection [0-9]+ is -[0-9.e-]+. expected a finite value >= 0"
  -g gneg.xml --projections pneg.mha -o out.mha --dimension 10 --spacing 8)
cbct_bad_input_test(forward_attenuation_negative cbct-forward "--attenuation negmu.mha: attenuation map at voxel"
  -g ge10.xml -i mu.mha -o out.mha --attenuation negmu.mha)
cbct_bad_input_test(simulate_psf_without_emission cbct-simulate "simulate emission data: give --emission"
  -g out.xml -o out.mha --psf 1,0.02)
cbct_bad_input_test(simulate_sdd_negative cbct-simulate
  "--sdd is -1. expected a source-to-detector distance > 0 in mm, or 0 for parallel beam" -g out.xml -o out.mha --sdd -1)
cbct_bad_input_test(simulate_negative_mu cbct-simulate
  "--mu-phantom negmu.txt: attenuation map at voxel \\([0-9]+, [0-9]+, [0-9]+\\) is -0.01"
  -g out.xml -o out.mha --emission --sdd 0 --sid 150 --nproj 4 --detector-size 16 --detector-spacing 8 --phantom activity.txt
  --mu-phantom negmu.txt)
cbct_bad_input_test(simulate_mu_output_without_phantom cbct-simulate "--mu-output mu2.mha: needs --mu-phantom"
  -g out.xml -o out.mha --emission --mu-output mu2.mha)
cbct_bad_input_test(simulate_seed cbct-simulate "--seed is -3. expected an integer from 0 to 4294967295"
  -g out.xml -o out.mha --emission --seed -3)
cbct_bad_input_test(simulate_breathing_option_alone cbct-simulate "simulate a breathing patient: give --breathing"
  -g out.xml -o out.mha --breathing-cycles 4)
cbct_bad_input_test(simulate_breathing_ellipsoid cbct-simulate
  "--breathing-ellipsoids is '4,10'. expected indices below the phantom's 10 ellipsoids"
  -g out.xml -o out.mha --breathing --breathing-ellipsoids 4,10)
cbct_bad_input_test(simulate_breathing_ellipsoid_text cbct-simulate "--breathing-ellipsoids is '4,x'. expected ellipsoid indices"
  -g out.xml -o out.mha --breathing --breathing-ellipsoids 4,x)
cbct_bad_input_test(simulate_breathing_first_phase cbct-simulate "--breathing-first-phase is 1. expected a phase in \\[0, 1\\)"
  -g out.xml -o out.mha --breathing --breathing-first-phase 1)
cbct_bad_input_test(simulate_breathing_cycles cbct-simulate "--breathing-cycles is 0. expected a number of breathing cycles"
  -g out.xml -o out.mha --breathing --breathing-cycles 0)
cbct_bad_input_test(simulate_breathing_amplitude cbct-simulate "--breathing-amplitude is '0,10'. expected X,Y,Z in mm"
  -g out.xml -o out.mha --breathing --breathing-amplitude 0,10)
cbct_bad_input_test(simulate_breathing_emission cbct-simulate "--breathing: simulates a breathing X-ray scan. --emission"
  -g out.xml -o out.mha --breathing --emission)
cbct_bad_input_test(simulate_phases_output_directory cbct-simulate
  "--phases-output is 'nodir/p.txt'. expected a file in an existing directory"
  -g out.xml -o out.mha --breathing --phases-output nodir/p.txt)
# A helical orbit (recognised from the geometry: the source moves along the rotation axis as it turns)
# is refused by 4D FDK, written for one circle, naming its feed; cbct-simulate's --helical checked.
cbct_bad_input_test(fourdfdk_helical cbct-fourdfdk "4D FDK geometry is a helical orbit.*expected a circular orbit.*4D ROOSTER"
  -g gh40.xml --projections ph40.mha --signal ph40_phases.txt --frames 2 -o out.mha --dimension 16 --spacing 8)
cbct_bad_input_test(simulate_helical_pitch cbct-simulate "--helical is 2.5. expected a pitch factor in \\(0, 2\\]"
  -g out.xml -o out.mha --helical 2.5)
cbct_bad_input_test(simulate_helical_parallel cbct-simulate "--helical: simulates a cone-beam helix; --sdd 0 is parallel beam"
  -g out.xml -o out.mha --helical 1 --sdd 0)
cbct_bad_input_test(simulate_arc_without_helical cbct-simulate "--arc is 720. expected an angle in degrees in \\(0, 360\\] \\(more turns with --helical\\)"
  -g out.xml -o out.mha --arc 720)
cbct_bad_input_test(simulate_detector_radius_negative cbct-simulate "--detector-radius is -5. expected the radius of a cylindrical detector in mm"
  -g out.xml -o out.mha --detector-radius -5)
cbct_bad_input_test(simulate_detector_radius_outside cbct-simulate
  "--detector-radius: RadiusCylindricalDetector 500 mm with projection 0 is a cylinder the source is not inside \\(its axis 1000 mm from the source"
  -g out.xml -o out.mha --detector-radius 500)
cbct_bad_input_test(simulate_detector_radius_parallel cbct-simulate "--detector-radius: a cylindrical detector is a cone-beam scanner's; --sdd 0 is parallel beam"
  -g out.xml -o out.mha --detector-radius 1500 --sdd 0)
cbct_bad_input_test(fdk_parallel cbct-fdk "FDK geometry is parallel beam \\(SourceToDetectorDistance 0\\). expected a cone-beam geometry"
  ${emission_inputs})
cbct_bad_input_test(compare_missing_input cbct-compare "--input is 'missing.mha'. expected an existing image file"
  -i missing.mha)
cbct_bad_input_test(compare_supersampling cbct-compare "--supersampling is 0. expected an integer from 1 to 16"
  -i p10.mha --supersampling 0)
cbct_bad_input_test(slices_window cbct-slices "--max is 0.5. expected a value > --min"
  -i p10.mha -o out.png --min 1 --max 0.5)

# Damaged inputs, outputs that are inputs, memory. Inputs from make_inputs.sh and
# make_damaged.py. A file cut short names the file and the bytes expected and found, in every format.
set(short_scan -g g10.xml -o out.mha --dimension 16 --spacing 8)
foreach(format mha nrrd nii nii.gz tif vtk)
  string(REPLACE "." "_" id ${format})
  cbct_bad_input_test(fdk_short_${id} cbct-fdk
    "--projections: .*short.${format} is [0-9]+ bytes.*. expected (at least )?[0-9]+ bytes.*the file is cut short"
    --projections short.${format} ${short_scan})
endforeach()
cbct_bad_input_test(fdk_short_detached_mhd cbct-fdk
  "--projections: pixel data of cutmhd.raw is 13653 bytes. expected 40960 bytes \\(32 x 32 x 10 pixels of float, as the header cutmhd.mhd says\\): the file is cut short"
  --projections cutmhd.mhd ${short_scan})
cbct_bad_input_test(fdk_short_detached_nhdr cbct-fdk
  "--projections: pixel data of cutnhdr.raw is 13653 bytes. expected 40960 bytes .*the file is cut short"
  --projections cutnhdr.nhdr ${short_scan})
cbct_bad_input_test(fdk_short_analyze_pair cbct-fdk
  "--projections: pixel data of cuthdr.img is 13653 bytes. expected 40960 bytes .*cuthdr.hdr.*the file is cut short"
  --projections cuthdr.hdr ${short_scan})
cbct_bad_input_test(fdk_short_compressed cbct-fdk
  "--projections: pixel data of short_zlib.mha is [0-9]+ bytes. expected 40960 bytes \\(32 x 32 x 10 pixels of float, as the header short_zlib.mha says, once inflated\\): the file is cut short"
  --projections short_zlib.mha ${short_scan})
cbct_bad_input_test(sart_short_mha cbct-sart "--projections: pixel data of short.mha is [0-9]+ bytes. expected 40960 bytes"
  --projections short.mha ${short_scan})
cbct_bad_input_test(forward_short_volume cbct-forward "--input: pixel data of short.nii is [0-9]+ bytes. expected 40960 bytes"
  -g g10.xml -i short.nii -o out.mha)
cbct_bad_input_test(fdk_missing_data_file cbct-fdk
  "--projections is 'missing_data.mhd'. expected an image ITK can read \\(data file missing_data.raw named by the header missing_data.mhd is missing"
  --projections missing_data.mhd ${short_scan})
# Damaged PNG files (make_damaged.py): decoded whole before ITK's reader, which let libpng abort the
# process on a damaged chunk (exit code 134, found by cbctFuzzProjectionFile); a CRC mismatch in the
# pixel data; the same file as --like, which is read for its grid only.
set(png_damage ". expected a file whose chunks, checksums and pixel data decode whole")
cbct_bad_input_test(fdk_png_damaged_chunk cbct-fdk
  "--projections: PNG file bad_chunk.png is damaged \\(libpng: I\\[00\\]DR: invalid chunk type\\)${png_damage}"
  --projections bad_chunk.png ${short_scan})
cbct_bad_input_test(fdk_png_crc_mismatch cbct-fdk
  "--projections: PNG file bad_crc.png is damaged \\(libpng: IDAT: CRC error\\)${png_damage}"
  --projections bad_crc.png ${short_scan})
cbct_bad_input_test(fdk_like_damaged_png cbct-fdk
  "--like: PNG file bad_chunk.png is damaged \\(libpng: I\\[00\\]DR: invalid chunk type\\)${png_damage}"
  -g g10.xml --projections p10.mha -o out.mha --like bad_chunk.png)
# NaN and infinities: refused by every method, naming the file and the first bad pixel.
set(nan_message "--projections: projection file nan.mha holds non-finite values: 3 \\(1 NaN, 1 \\+Inf, 1 -Inf. the first at pixel \\(u, v, projection\\) \\(5, 3, 0\\)\\). expected finite line integrals \\(--replace-nonfinite VALUE replaces them\\)")
foreach(app fdk sart cgls osem)
  cbct_bad_input_test(${app}_nonfinite_projections cbct-${app} "${nan_message}" --projections nan.mha ${short_scan})
endforeach()
cbct_bad_input_test(fdk_replace_nonfinite_not_a_number cbct-fdk
  "--replace-nonfinite is 'zero'. expected a finite value to put in place of NaN and infinities"
  --projections nan.mha ${short_scan} --replace-nonfinite zero)
cbct_bad_input_test(sart_replace_nonfinite_nan cbct-sart
  "--replace-nonfinite is 'nan'. expected a finite value to put in place of NaN and infinities"
  --projections nan.mha ${short_scan} --replace-nonfinite nan)
cbct_bad_input_test(forward_nonfinite_volume cbct-forward
  "--input inf_volume.mha holds non-finite values: 1 \\(1 \\+Inf. the first at voxel .*expected finite values everywhere in the volume"
  -g g10.xml -i inf_volume.mha -o out.mha)
cbct_bad_input_test(sart_nonfinite_initial_volume cbct-sart
  "--input inf_volume.mha holds non-finite values: 1 .*expected finite values everywhere in the initial volume"
  -g g10.xml --projections p10.mha -i inf_volume.mha -o out.mha)
cbct_bad_input_test(compare_nonfinite_volume cbct-compare "--input inf_volume.mha holds non-finite values"
  -i inf_volume.mha --profile out.csv)
# Grids: zero spacing, an oblique direction, 4 dimensions, colour pixels.
cbct_bad_input_test(fdk_zero_spacing cbct-fdk "--projections.*zero_spacing.mha.*spacing" --projections zero_spacing.mha ${short_scan})
cbct_bad_input_test(fdk_oblique_direction cbct-fdk
  "--projections: direction of oblique.mha is .*. expected the detector's u and v along the first two axes, possibly flipped or swapped"
  --projections oblique.mha ${short_scan})
cbct_bad_input_test(forward_oblique_volume cbct-forward
  "--input: direction of oblique.mha is .*. expected the world's axes, possibly flipped or swapped"
  -g g10.xml -i oblique.mha -o out.mha)
cbct_bad_input_test(fdk_four_dimensions cbct-fdk
  "--projections is 'four_d.mha' \\(32 x 32 x 5 x 2 pixels of float\\). expected an image of at most 3 dimensions"
  --projections four_d.mha ${short_scan})
cbct_bad_input_test(fdk_colour_pixels cbct-fdk
  "--projections is 'rgb.mha' \\(32 x 32 x 1 pixels of 3 x float\\). expected one value per pixel"
  --projections rgb.mha ${short_scan})
# Geometry and phantom files.
cbct_bad_input_test(fdk_geometry_cut_short cbct-fdk
  "--geometry: geometry file cut.xml is cut off before </RTKThreeDCircularGeometry>. expected a complete XML document"
  -g cut.xml --projections p10.mha -o out.mha)
cbct_bad_input_test(simulate_phantom_negative_axis cbct-simulate
  "line 1 of phantom file badphantom.txt is 'ellipsoid 1 0 0 0 -5 3 3'. expected valid values"
  -g out.xml -o out.mha --phantom badphantom.txt)
# The output is an input: refused before any work, the input left as it was, however it is named.
cbct_bad_input_test_keeping(fdk_output_is_projections cbct-fdk
  "--output is 'p10.mha', the same file as the --projections p10.mha. expected an output that is none of the inputs"
  p10.mha -g g10.xml --projections p10.mha -o p10.mha)
cbct_bad_input_test_keeping(fdk_output_is_projections_spelled_otherwise cbct-fdk
  "--output is '../bad_input/p10.mha', the same file as the --projections ./p10.mha"
  p10.mha -g g10.xml --projections ./p10.mha -o ../bad_input/p10.mha)
cbct_bad_input_test_keeping(fdk_output_is_projections_by_symlink cbct-fdk
  "--output is 'p10.mha', the same file as the --projections link10.mha"
  p10.mha -g g10.xml --projections link10.mha -o p10.mha)
cbct_bad_input_test_keeping(fdk_output_is_projections_by_hard_link cbct-fdk
  "--output is 'hard10.mha', the same file as the --projections p10.mha"
  p10.mha -g g10.xml --projections p10.mha -o hard10.mha)
cbct_bad_input_test_keeping(fdk_output_writes_the_inputs_data_file cbct-fdk
  "--output is 'p10d.nhdr' \\(which writes p10d.raw\\), the same file as the --projections p10d.raw"
  p10d.raw -g g10.xml --projections p10d.mhd -o p10d.nhdr)
cbct_bad_input_test_keeping(fdk_output_in_path_series cbct-fdk
  "--output is 'p10.mha', the same file as the --path/--regexp ./p10.mha"
  p10.mha -g g10.xml --path . --regexp "^p10[.]mha$" -o p10.mha)
cbct_bad_input_test_keeping(sart_output_is_projections cbct-sart "--output is 'p10.mha', the same file as the --projections p10.mha"
  p10.mha -g g10.xml --projections p10.mha -o p10.mha)
cbct_bad_input_test_keeping(cgls_output_is_initial_volume cbct-cgls "--output is 'existing.mha', the same file as the --input existing.mha"
  existing.mha -g g10.xml --projections p10.mha -i existing.mha -o existing.mha)
cbct_bad_input_test_keeping(osem_output_is_geometry cbct-osem "--output is 'g10.xml'"
  g10.xml -g g10.xml --projections p10.mha -o g10.xml)
cbct_bad_input_test_keeping(forward_output_is_input cbct-forward "--output is 'p12.mha', the same file as the --input p12.mha"
  p12.mha -g g12.xml -i p12.mha -o p12.mha)
cbct_bad_input_test_keeping(simulate_geometry_is_phantom cbct-simulate
  "--geometry is 'badphantom.txt', the same file as the --phantom badphantom.txt"
  badphantom.txt -g badphantom.txt -o out.mha --phantom badphantom.txt)
cbct_bad_input_test(simulate_geometry_is_output cbct-simulate "--output is '.*same.out.mha', the same file as --geometry"
  -g same.out.mha -o same.out.mha)
cbct_bad_input_test_keeping(compare_profile_is_input cbct-compare "--profile is 'p10.mha', the same file as the --input p10.mha"
  p10.mha -i p10.mha --profile p10.mha)
# A failed run leaves an output that was there before as it was.
cbct_bad_input_test_keeping(fdk_existing_output_kept cbct-fdk "--projections: pixel data of short.mha"
  existing.mha -g g10.xml --projections short.mha -o existing.mha)
# More memory than the machine has free: the default budget (what is free now), what the smallest plan
# needs and what would make it fit.
cbct_bad_input_test(fdk_volume_too_large cbct-fdk
  "a memory budget of [0-9.]+ [KMGT]iB \\(90% of the [0-9.]+ [KMGT]iB available now. --memory sets it\\) is too small for this reconstruction: its smallest plan .* needs [0-9.]+ [GTP]iB besides the [0-9.]+ MiB the program holds. expected --memory [0-9.]+[GTP] or more, or a smaller volume"
  -g g10.xml --projections p10.mha -o out.mha --dimension 100000 --spacing 0.001)
cbct_bad_input_test(cgls_volume_too_large cbct-cgls
  "the reconstruction needs at least [0-9.]+ [PT]iB .*adjoint's partial sums.* of memory. this machine has .*give a smaller volume"
  -g g10.xml --projections p10.mha -o out.mha --dimension 50000 --spacing 0.001)
cbct_bad_input_test(simulate_too_many_projections cbct-simulate
  "the simulation needs at least [0-9.]+ [PT]iB \\(projections .*\\) of memory. this machine has .*give fewer projections \\(--nproj\\)"
  -g out.xml -o out.mha --nproj 1000000 --detector-size 100000)
cbct_bad_input_test(forward_too_many_projections cbct-forward
  "the projection needs at least [0-9.]+ [PT]iB .* of memory. this machine has .*give fewer or smaller projections"
  -g g10.xml -i p12.mha -o out.mha --dimension 1000000)

# The installed package: cmake --install, then an outside project does find_package(ConeBeamCT),
# links ConeBeamCT::ConeBeamCT, builds and runs (reader -> FDK -> writer, as in the README).
add_test(NAME apps.installed_package
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/install_test.sh ${CMAKE_BINARY_DIR} ${cbct_app_work}/installed_package
          ${CMAKE_COMMAND} ${CMAKE_GENERATOR} ${CMAKE_CXX_COMPILER} ${cbct_app_work}/bad_input)
set_tests_properties(apps.installed_package PROPERTIES FIXTURES_REQUIRED cbct_bad_input TIMEOUT 600)

# 3D Slicer command-line modules (slicer/README.md), every app of cbct_apps: --xml follows the rules of
# Slicer's parser and names every option of --help (slicer_xml); then the app runs as Slicer runs it,
# from its XML alone, on a small case, and its output is checked (slicer_run; with CUDA, also with the
# hardware parameter set to cuda where a device is present; cbct-view under xvfb-run or a DISPLAY).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  find_program(CBCT_XVFB_RUN xvfb-run)
  set(cbct_slicer_run_options --xvfb "${CBCT_XVFB_RUN}")
  if(CBCT_USE_CUDA)
    list(APPEND cbct_slicer_run_options --cuda)
  endif()
  # With SlicerExecutionModel's GenerateCLP (a Slicer build has it), also Slicer's own parser.
  find_program(CBCT_GENERATECLP GenerateCLP)
  set(cbct_slicer_xml_options)
  if(CBCT_GENERATECLP)
    set(cbct_slicer_xml_options --generateclp ${CBCT_GENERATECLP} ${cbct_app_work}/slicer_xml)
  endif()
  foreach(app IN LISTS cbct_apps)
    add_test(NAME apps.${app}.slicer_xml
      COMMAND ${Python3_EXECUTABLE} ${cbct_app_tests}/slicer_check.py xml $<TARGET_FILE:${app}> ${cbct_slicer_xml_options})
    add_test(NAME apps.${app}.slicer_run
      COMMAND ${cbct_in_test_folder} ${cbct_app_work}/slicer_run/${app}
              ${Python3_EXECUTABLE} ${cbct_app_tests}/slicer_check.py run $<TARGET_FILE:${app}> ${cbct_bin}
              ${cbct_app_work}/slicer_run/${app} ${cbct_slicer_run_options})
    set_tests_properties(apps.${app}.slicer_xml PROPERTIES LABELS slicer)
    set_tests_properties(apps.${app}.slicer_run PROPERTIES LABELS slicer TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
  # Pictures: scripts/plot-bench.py and scripts/plot-profile.py (PNG with matplotlib, else a message).
  add_test(NAME apps.plots
    COMMAND ${CBCT_BASH} ${cbct_app_tests}/plot_check.sh ${cbct_bin} ${cbct_app_work}/plots ${Python3_EXECUTABLE}
            ${PROJECT_SOURCE_DIR}/scripts)
  set_tests_properties(apps.plots PROPERTIES TIMEOUT 300)
else()
  message(STATUS "No Python 3: the apps' Slicer tests (apps.*.slicer_xml, apps.*.slicer_run) are not added")
endif()

# cbct-view (built with VTK): an offscreen screenshot of a ramp volume, checked pixel by pixel.
# Debian's VTK renders through X only, so without a display the test runs under xvfb-run.
if(TARGET cbct-view AND Python3_Interpreter_FOUND)
  find_program(CBCT_XVFB_RUN xvfb-run)
  if(CBCT_XVFB_RUN OR DEFINED ENV{DISPLAY})
    add_test(NAME apps.cbct-view.screenshot
      COMMAND ${cbct_in_test_folder} ${cbct_app_work}/view
              ${Python3_EXECUTABLE} ${cbct_app_tests}/view_check.py $<TARGET_FILE:cbct-view>
              ${cbct_app_work}/view "${CBCT_XVFB_RUN}")
    set_tests_properties(apps.cbct-view.screenshot PROPERTIES TIMEOUT 120)
  else()
    message(STATUS "No xvfb-run and no DISPLAY: apps.cbct-view.screenshot is not added (apt-get install xvfb)")
  endif()
endif()

# The default window shows soft tissue: the ventricles of a small Shepp-Logan FDK stand out from the
# brain in the pixels of cbct-slices' picture and (with VTK, under xvfb-run or a DISPLAY) cbct-view's
# screenshot, and not in the old full-range window; labels are drawn; the window keys work.
if(Python3_Interpreter_FOUND)
  add_test(NAME apps.view_contrast
    COMMAND ${cbct_in_test_folder} ${cbct_app_work}/view_contrast
            ${Python3_EXECUTABLE} ${cbct_app_tests}/view_contrast.py ${cbct_bin} ${cbct_app_work}/view_contrast
            "${CBCT_XVFB_RUN}")
  set_tests_properties(apps.view_contrast PROPERTIES TIMEOUT 120)
endif()

# cbct-import: a scanner's scan (an Elekta XVI folder written by cbctWriteScan from simulated line
# integrals) -> projections and geometry that reconstruct as the simulation; cbct-fdk/cbct-sart --scan
# bit for bit the same; --raw; refusals. cbctWriteScan also writes the folders of the import benchmark
# (docs/guide/scanner-data.md).
add_executable(cbctWriteScan ${cbct_app_tests}/cbctWriteScan.cxx)
target_link_libraries(cbctWriteScan PRIVATE ConeBeamCT ${ITK_LIBRARIES})
# DICOM-CT-PD files are written through GDCM (an independent implementation of the DICOM encoding).
include(${PROJECT_SOURCE_DIR}/cmake/cbctFindGDCM.cmake)
if(CBCT_GDCM_FOUND)
  target_compile_definitions(cbctWriteScan PRIVATE CBCT_WRITE_DICOMCTPD)
  target_link_libraries(cbctWriteScan PRIVATE ${CBCT_GDCM_LIBRARIES})
  target_include_directories(cbctWriteScan SYSTEM PRIVATE ${CBCT_GDCM_INCLUDE_DIR})
  # A helical scan on a cylinder written as DICOM-CT-PD (the AAPM/Mayo format), imported and
  # reconstructed by helical FDK as the simulation; --scan bit for bit; a file cut short refused.
  add_test(NAME apps.dicomctpd_import
    COMMAND ${CBCT_BASH} ${cbct_app_tests}/dicomctpd_import.sh ${cbct_bin} ${cbct_app_work}/dicomctpd_import)
  set_tests_properties(apps.dicomctpd_import PROPERTIES TIMEOUT 300)
endif()
add_test(NAME apps.import_end_to_end
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/import_end_to_end.sh ${cbct_bin} ${cbct_app_work}/import_end_to_end)
set_tests_properties(apps.import_end_to_end PROPERTIES TIMEOUT 300)
add_test(NAME apps.bad_input.import_outputs_are_inputs
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/import_end_to_end.sh ${cbct_bin} ${cbct_app_work}/import_outputs_are_inputs
          outputs-are-inputs)
set_tests_properties(apps.bad_input.import_outputs_are_inputs PROPERTIES LABELS badinput)
# A lone Varian projection (a TrueBeam XIM, an OBI HND with a real header), as a user opens the one
# file they have: --raw needs no air scan and gives the stored readings; the HND's geometry in mm; the
# summary says what the geometry file holds; refusals (no air scan for line integrals, placeholders,
# distances in another unit, a detector beside the rotation axis) name the field and write nothing.
add_test(NAME apps.varian_lone_files
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/varian_lone_files.sh ${cbct_bin} ${cbct_app_work}/varian_lone_files)
add_test(NAME apps.bad_input.varian_lone_files
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/varian_lone_files.sh ${cbct_bin} ${cbct_app_work}/varian_lone_refusals
          refusals)
set_tests_properties(apps.bad_input.varian_lone_files PROPERTIES LABELS badinput)
cbct_bad_input_test(import_no_input cbct-import "^cbct-import: error: INPUT is required" -o out.mha -g out.xml)
cbct_bad_input_test(import_format cbct-import "--format is 'siemens'. expected one of varian, elekta"
  . --format siemens -o out.mha -g out.xml)
cbct_bad_input_test(import_unrecognised cbct-import "INPUT \\.: no scanner scan recognised in \\.. Looked for varian \\(Varian"
  . -o out.mha -g out.xml)
cbct_bad_input_test(import_missing cbct-import "INPUT is 'nowhere'. expected an existing scan folder or file"
  nowhere -o out.mha -g out.xml)

# cbct-fdk within a memory budget (--memory): projections streamed from their files, the volume written
# slab by slab (.mha, .nhdr, a TIFF stack of one file per slice), each bit for bit the in-memory
# volume (cbctSameVoxels compares the voxels, headers aside), peak resident memory within 1.1 x the
# budget; under mpirun too. And the refusals: a size that is none, a budget below the program's own
# memory, a budget too small for one row of voxels (naming the budget needed).
add_executable(cbctSameVoxels ${cbct_app_tests}/cbctSameVoxels.cxx)
target_link_libraries(cbctSameVoxels PRIVATE ConeBeamCT ${ITK_LIBRARIES})
set(cbct_memory_mpi)
if(CBCT_USE_MPI AND MPIEXEC_EXECUTABLE)
  set(cbct_memory_mpi ${MPIEXEC_EXECUTABLE})
endif()
add_test(NAME apps.memory_budget
  COMMAND ${CBCT_BASH} ${cbct_app_tests}/memory_budget.sh ${cbct_bin} ${cbct_app_work}/memory_budget ${cbct_memory_mpi})
set_tests_properties(apps.memory_budget PROPERTIES TIMEOUT 300 PROCESSORS 2)
cbct_bad_input_test(fdk_memory_size cbct-fdk "--memory is '8X'. expected a memory size > 0 such as 8G, 512M"
  ${recon_inputs} --memory 8X)
cbct_bad_input_test(fdk_gpu_memory_size cbct-fdk "--gpu-memory is 'lots'. expected a memory size > 0"
  ${recon_inputs} --gpu-memory lots)
cbct_bad_input_test(fdk_memory_below_program cbct-fdk "--memory 10M is less than the [0-9.]+ MiB the program itself holds"
  ${recon_inputs} --memory 10M)
cbct_bad_input_test(fdk_memory_too_small cbct-fdk
  "a memory budget of 300 MiB .--memory 300M. is too small for this reconstruction: its smallest plan .slabs of one row of voxels along y, batches of 10 projections. needs [0-9.]+ MiB besides the [0-9.]+ MiB the program holds. expected --memory [0-9.]+[MG] or more"
  -g g10.xml --projections p10.mha -o out.mha --dimension 8000 --spacing 0.02 --memory 300M)
# The apps that hold their projections and volumes whole refuse a run whose buffers exceed --memory.
cbct_bad_input_test(sart_memory_too_small cbct-sart
  "--memory 100M: the reconstruction needs at least [0-9.]+ [MG]iB .* besides the [0-9.]+ MiB the program holds"
  -g g10.xml --projections p10.mha -o out.mha --dimension 400 --spacing 0.5 --memory 100M)
cbct_bad_input_test(fourdfdk_memory_too_small cbct-fourdfdk
  "--memory 100M: the 4D reconstruction needs at least [0-9.]+ MiB .* besides the [0-9.]+ MiB the program holds"
  -g g10.xml --projections p10.mha --signal p10_phases.txt --frames 2 -o out.mha --dimension 300 --spacing 0.5 --memory 100M)
